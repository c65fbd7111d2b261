// Command denoisequality prints the denoiser quality table of
// benchmarks/denoise.md: on each scene, the 16-spp image noisy, denoised by
// the regression filter and by the network (1 and 8 passes, where its
// weights are installed), and noisy at 64 and 256 spp, each against a long
// reference: PSNR, SSIM and the PSNR of the crop that holds the hair ball.
// Minutes of rendering at the references' 128×128:
//
//	go run ./benchmarks/denoisequality -refs DIR
//
// DIR holds cornell-4096.exr and hairy-4096.exr, rendered with
// `sertrace render scenes/NAME.glb --res 128x128 --spp 4096 --seed 1000`;
// a scene whose reference is missing is left out, saying so.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"sertrace/denoise"
	"sertrace/denoise/unet"
	"sertrace/render"
	"sertrace/render/cpu"
	"sertrace/scene"
)

// references pairs each scene with its reference's file name.
var references = []struct{ scene, file string }{{"cornell", "cornell-4096.exr"}, {"hairy-cornell", "hairy-4096.exr"}}

func main() {
	refs := flag.String("refs", "", "folder of the references (cornell-4096.exr, hairy-4096.exr)")
	scenes := flag.String("scenes", "scenes", "folder of the generated scenes")
	flag.Parse()
	if *refs == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./benchmarks/denoisequality -refs DIR [-scenes DIR]")
		os.Exit(2)
	}
	note := func(line string) { fmt.Fprintln(os.Stderr, line) }
	if err := qualityTable(os.Stdout, note, *refs, *scenes); err != nil {
		fmt.Fprintln(os.Stderr, "denoisequality:", err)
		os.Exit(1)
	}
}

// denoiser is a denoiser with its name in the table.
type denoiser struct {
	name   string
	method denoise.Method
}

// qualityTable writes the table (Markdown) to w for each scene whose
// reference refs holds; what it leaves out goes to note.
func qualityTable(w io.Writer, note func(string), refs, scenes string) error {
	type job struct{ scene, ref string }
	var jobs []job
	for _, c := range references {
		path := filepath.Join(refs, c.file)
		if _, err := os.Stat(path); err != nil {
			note(fmt.Sprintf("%s: left out: %v", c.scene, err))
			continue
		}
		jobs = append(jobs, job{c.scene, path})
	}
	if len(jobs) == 0 {
		return errors.New(refs + " holds none of the references (cornell-4096.exr, hairy-4096.exr)")
	}
	var network []denoiser
	if missing := unet.Missing(unet.Dir()); missing != nil {
		note(fmt.Sprintf("no network weights in %s (sertrace weights fetch): no network rows", unet.Dir()))
	} else {
		for _, passes := range []int{1, 8} {
			m, err := denoise.Choose("network", passes, "cpu", -1, note)
			if err != nil {
				return err
			}
			network = append(network, denoiser{fmt.Sprintf("network, %d pass%s", passes, map[bool]string{true: "es"}[passes > 1]), m})
		}
	}
	fmt.Fprintln(w, "| scene | image | PSNR (dB) | SSIM | hair crop PSNR |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	for _, j := range jobs {
		if err := sceneRows(w, j.scene, j.ref, filepath.Join(scenes, j.scene+".glb"), network); err != nil {
			return err
		}
	}
	return nil
}

// sceneRows writes one scene's rows: its films rendered at the reference's
// size (seed = samples per pixel) and compared with it.
func sceneRows(w io.Writer, name, refPath, scenePath string, network []denoiser) error {
	width, height, ch, err := render.ReadEXR(refPath, "R", "G", "B")
	if err != nil {
		return err
	}
	if ch["R"] == nil || ch["G"] == nil || ch["B"] == nil {
		return fmt.Errorf("%s: no R, G, B channels", refPath)
	}
	ref := make([]float32, 3*width*height)
	for i := 0; i < width*height; i++ {
		ref[3*i], ref[3*i+1], ref[3*i+2] = ch["R"][i], ch["G"][i], ch["B"][i]
	}
	sc, err := scene.Load(scenePath)
	if err != nil {
		return err
	}
	film := func(spp int) (*render.Film, error) {
		opts := render.Options{Width: width, Height: height, SPP: spp, MaxDepth: 8, Seed: uint32(spp)}
		f := render.NewFilm(width, height)
		_, err := render.Render(context.Background(), cpu.Backend{}, sc, opts, f, nil)
		return f, err
	}
	// The crop that holds the hair ball: x 70–115, y 52–91 of 128×128.
	crop := func(p []float32) []float32 {
		var out []float32
		for y := 52 * height / 128; y < 92*height/128; y++ {
			out = append(out, p[3*(y*width+70*width/128):3*(y*width+116*width/128)]...)
		}
		return out
	}
	row := func(image string, f *render.Film) {
		p, _ := f.Resolve(render.AOVBeauty)
		fmt.Fprintf(w, "| %s | %s | %.2f | %.3f | %.2f |\n", name, image, denoise.PSNR(p, ref), denoise.SSIM(p, ref, width, height), denoise.PSNR(crop(p), crop(ref)))
	}
	f16, err := film(16)
	if err != nil {
		return err
	}
	row("noisy 16 spp", f16)
	d, err := denoise.Film(context.Background(), f16, denoise.Regression(denoise.Defaults, denoise.RegressCPU))
	if err != nil {
		return err
	}
	row("denoised 16 spp (regression)", d)
	for _, n := range network {
		d, err := denoise.Film(context.Background(), f16, n.method)
		if err != nil {
			return err
		}
		row("denoised 16 spp ("+n.name+")", d)
	}
	for _, spp := range []int{64, 256} {
		f, err := film(spp)
		if err != nil {
			return err
		}
		row(fmt.Sprintf("noisy %d spp", spp), f)
	}
	return nil
}
