package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"

	"sertrace/render"
	"sertrace/scene"
)

// result is one scene's comparison.
type result struct {
	Scene                      string
	SertraceSeconds            float64 // BVH build and render
	Tracer                     string  // sertrace's CPU tracer, as its statistics say
	CyclesSeconds              float64 // render operator: scene sync, BVH and render
	Mean                       [2]float64
	MeanRatio                  float64 // sertrace / Cycles
	MeanError                  float64 // the ratio's standard error from sertrace's variance
	MinRegion, MaxRegion       float64
	MinRegionAt, MaxRegionAt   [2]int
	Regions                    [][]float64 // sertrace / Cycles per region: NaN where both are black, +Inf where only Cycles is
	RegionErrors               [][]float64 // each region ratio's standard error from sertrace's variance
	RegionError                float64     // the largest of them
	RegionShares               [][]float64 // each region's share of Cycles' image's light
	Objects                    []objectResult
	SertraceImage, CyclesImage string
}

// objectResult is one object's comparison: the mean luminance over the
// middle of its projected bounding sphere.
type objectResult struct {
	Name         string
	Pixels       int
	Mean         [2]float64 // sertrace, Cycles
	Ratio, Error float64    // sertrace / Cycles, its standard error from sertrace's variance
}

// luminance reads an EXR's RGB as Rec. 709 luminance.
func luminance(path string) (w, h int, lum []float64, err error) {
	w, h, ch, err := render.ReadEXR(path, "R", "G", "B")
	if err != nil {
		return 0, 0, nil, err
	}
	if ch["R"] == nil || ch["G"] == nil || ch["B"] == nil {
		return 0, 0, nil, fmt.Errorf("%s: no R, G and B channels", path)
	}
	lum = make([]float64, w*h)
	for i := range lum {
		lum[i] = 0.2126*float64(ch["R"][i]) + 0.7152*float64(ch["G"][i]) + 0.0722*float64(ch["B"][i])
		if math.IsNaN(lum[i]) || math.IsInf(lum[i], 0) {
			return 0, 0, nil, fmt.Errorf("%s: pixel (%d, %d) is %v", path, i%w, i/w, lum[i])
		}
	}
	return w, h, lum, nil
}

// measure compares the two images: the mean luminance ratio and the ratio
// in each of Grid×Grid regions, with the standard error of sertrace's
// region means from its per-pixel variance.
func (r *result) measure(s settings) error {
	sw, sh, sl, err := luminance(r.SertraceImage)
	if err != nil {
		return err
	}
	cw, ch, cl, err := luminance(r.CyclesImage)
	if err != nil {
		return err
	}
	if k := s.cyclesScale(); k > 1 && cw == k*s.Width && ch == k*s.Height {
		cw, ch, cl = s.Width, s.Height, boxDown(cl, cw*k, k)
	}
	if sw != cw || sh != ch || sw != s.Width || sh != s.Height {
		return fmt.Errorf("%s: sertrace wrote %dx%d, Cycles %dx%d, asked for %dx%d", r.Scene, sw, sh, cw, ch, s.Width, s.Height)
	}
	_, _, vc, err := render.ReadEXR(r.SertraceImage, "variance.Y")
	if err != nil {
		return err
	}
	variance := vc["variance.Y"]
	var sumVar float64
	for i := range sl {
		r.Mean[0] += sl[i]
		r.Mean[1] += cl[i]
		if variance != nil {
			sumVar += float64(variance[i])
		}
	}
	if r.Mean[1] <= 0 {
		return fmt.Errorf("%s: Cycles' image is black", r.Scene)
	}
	if r.Mean[0] <= 0 {
		return fmt.Errorf("%s: sertrace's image is black", r.Scene)
	}
	r.MeanRatio = r.Mean[0] / r.Mean[1]
	r.MeanError = math.Sqrt(sumVar) / r.Mean[1]
	r.Mean[0] /= float64(len(sl))
	r.Mean[1] /= float64(len(cl))
	g := s.Grid
	r.Regions, r.RegionErrors, r.RegionShares = make([][]float64, g), make([][]float64, g), make([][]float64, g)
	r.MinRegion, r.MaxRegion = math.Inf(1), math.Inf(-1)
	for gy := 0; gy < g; gy++ {
		r.Regions[gy], r.RegionErrors[gy], r.RegionShares[gy] = make([]float64, g), make([]float64, g), make([]float64, g)
		for gx := 0; gx < g; gx++ {
			var a, b, v float64
			for y := gy * sh / g; y < (gy+1)*sh/g; y++ {
				for x := gx * sw / g; x < (gx+1)*sw/g; x++ {
					a += sl[y*sw+x]
					b += cl[y*sw+x]
					if variance != nil {
						v += float64(variance[y*sw+x])
					}
				}
			}
			ratio, e := math.NaN(), 0.0
			switch {
			case b > 0:
				ratio, e = a/b, math.Sqrt(v)/b
				r.RegionError = max(r.RegionError, e)
			case a > 0:
				ratio = math.Inf(1)
			}
			r.Regions[gy][gx], r.RegionErrors[gy][gx] = ratio, e
			r.RegionShares[gy][gx] = b / (r.Mean[1] * float64(len(cl)))
			if ratio < r.MinRegion {
				r.MinRegion, r.MinRegionAt = ratio, [2]int{gx, gy}
			}
			if ratio > r.MaxRegion {
				r.MaxRegion, r.MaxRegionAt = ratio, [2]int{gx, gy}
			}
		}
	}
	if err := writeRatioPNG(strings.TrimSuffix(r.SertraceImage, "sertrace.exr")+"ratio.png", sw, sh, sl, cl); err != nil {
		return err
	}
	for _, p := range []string{r.SertraceImage, r.CyclesImage} {
		if err := writePNG(p, 0.18/r.Mean[1]); err != nil {
			return err
		}
	}
	return nil
}

// boxDown averages each k×k block of a w-wide image.
func boxDown(img []float64, w, k int) []float64 {
	ow, oh := w/k, len(img)/w/k
	out := make([]float64, ow*oh)
	for y := 0; y < oh*k; y++ {
		for x := 0; x < ow*k; x++ {
			out[y/k*ow+x/k] += img[y*w+x] / float64(k*k)
		}
	}
	return out
}

// objectDisc is the share of an object's projected bounding-sphere radius
// whose disc -objects averages over: away from the silhouette, where a
// pixel mixes the object and what is behind it.
const objectDisc = 0.6

// measureObjects compares each triangle-mesh object's mean luminance over
// the middle of the disc its bounding sphere (the box's largest half
// extent about its centre: a sphere's own) projects to through the
// comparison camera; objects whose disc leaves the image, covers under 12
// pixels or lies partly behind a nearer object's are left out.
func measureObjects(gltfPath, sertraceEXR, cyclesEXR string, s settings) ([]objectResult, error) {
	sc, err := scene.Load(gltfPath)
	if err != nil {
		return nil, err
	}
	var cam *scene.Camera
	for i := range sc.Cameras {
		if sc.Cameras[i].Name == cameraName {
			cam = &sc.Cameras[i]
		}
	}
	if cam == nil {
		return nil, fmt.Errorf("%s: no camera %q", gltfPath, cameraName)
	}
	names, err := nodeNames(gltfPath)
	if err != nil {
		return nil, err
	}
	w, h, sl, err := luminance(sertraceEXR)
	if err != nil {
		return nil, err
	}
	_, _, cl, err := luminance(cyclesEXR)
	if err != nil {
		return nil, err
	}
	_, _, vc, err := render.ReadEXR(sertraceEXR, "variance.Y")
	if err != nil {
		return nil, err
	}
	variance := vc["variance.Y"]
	m := cam.Transform
	v3 := func(k int) scene.Vec3 { return scene.Vec3{X: float32(m[k]), Y: float32(m[k+1]), Z: float32(m[k+2])} }
	right := v3(0).Normalize()
	up := v3(4).Normalize()
	back := v3(8).Normalize()
	eye := v3(12)
	tanY := math.Tan(float64(cam.YFov) / 2)
	type disc struct {
		name       string
		x, y, r, z float64
	}
	var discs []disc
	for _, in := range sc.Instances {
		if in.Geometry.Kind != scene.Triangles {
			continue
		}
		b := sc.GeometryBounds(in.Geometry).Transform(in.Transform)
		c := b.Min.Add(b.Max).Scale(0.5)
		ext := b.Max.Sub(b.Min).Scale(0.5)
		radius := float64(max(ext.X, ext.Y, ext.Z))
		d := c.Sub(eye)
		z := -float64(d.Dot(back))
		if z <= radius {
			continue
		}
		scale := float64(h) / 2 / tanY / z
		name := fmt.Sprintf("node %d", in.Node)
		if in.Node >= 0 && in.Node < len(names) && names[in.Node] != "" {
			name = names[in.Node]
		}
		discs = append(discs, disc{name, float64(w)/2 + float64(d.Dot(right))*scale, float64(h)/2 - float64(d.Dot(up))*scale, radius * scale, z})
	}
	var out []objectResult
	for i, o := range discs {
		r := objectDisc * o.r
		if o.x-r < 0 || o.y-r < 0 || o.x+r > float64(w) || o.y+r > float64(h) {
			continue
		}
		overlaps := false // an object nearer the camera covers some of the disc
		for j, p := range discs {
			if j != i && p.z < o.z && math.Hypot(o.x-p.x, o.y-p.y) < r+p.r {
				overlaps = true
			}
		}
		if overlaps {
			continue
		}
		res := objectResult{Name: o.name}
		var v float64
		for y := int(o.y - r); y <= int(o.y+r); y++ {
			for x := int(o.x - r); x <= int(o.x+r); x++ {
				if x < 0 || y < 0 || x >= w || y >= h || math.Hypot(float64(x)+0.5-o.x, float64(y)+0.5-o.y) > r {
					continue
				}
				res.Mean[0] += sl[y*w+x]
				res.Mean[1] += cl[y*w+x]
				if variance != nil {
					v += float64(variance[y*w+x])
				}
				res.Pixels++
			}
		}
		if res.Pixels < 12 || res.Mean[1] <= 0 {
			continue
		}
		res.Ratio, res.Error = res.Mean[0]/res.Mean[1], math.Sqrt(v)/res.Mean[1]
		res.Mean[0] /= float64(res.Pixels)
		res.Mean[1] /= float64(res.Pixels)
		out = append(out, res)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no object lies whole and apart in the image", gltfPath)
	}
	return out, nil
}

// nodeNames are the names of a .gltf's nodes, by index.
func nodeNames(gltfPath string) ([]string, error) {
	data, err := os.ReadFile(gltfPath)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Nodes []struct {
			Name string `json:"name"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", gltfPath, err)
	}
	names := make([]string, len(doc.Nodes))
	for i, n := range doc.Nodes {
		names[i] = n.Name
	}
	return names, nil
}
