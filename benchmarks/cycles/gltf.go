package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sertrace/scene"
)

// prepare writes the scene into dir as a .gltf with its buffers and images
// beside it, with a camera and, for a transport comparison, Lambertian
// materials; it returns the .gltf's path.
func prepare(path, dir string, s settings) (_ string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var doc map[string]any
	var bin []byte
	if bytes.HasPrefix(data, []byte("glTF")) {
		var js []byte
		if js, bin, err = splitGLB(data); err != nil {
			return "", fmt.Errorf("%s: %v", path, err)
		}
		data = js
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	if err := copyResources(doc, filepath.Dir(path), dir, bin); err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	if s.PointsSides > 0 {
		n, err := pointsAsMeshes(doc, dir, s.PointsSides)
		if err != nil {
			return "", fmt.Errorf("%s: %v", path, err)
		}
		fmt.Fprintf(os.Stderr, "%s: %d particles as spheres of %d sides, for both renderers\n", filepath.Base(path), n, s.PointsSides)
	}
	if s.Diffuse {
		lambertian(doc)
	}
	if s.Flat {
		meshes, _ := doc["meshes"].([]any)
		for _, m := range meshes {
			prims, _ := m.(map[string]any)["primitives"].([]any)
			for _, p := range prims {
				if attrs, ok := p.(map[string]any)["attributes"].(map[string]any); ok {
					delete(attrs, "NORMAL")
					delete(attrs, "TANGENT")
				}
			}
		}
	}
	if s.NoLights {
		dropLights(doc)
	}
	out := filepath.Join(dir, "scene.gltf")
	if err := writeJSON(out, doc); err != nil {
		return "", err
	}
	sc, err := scene.Load(out)
	if err != nil {
		return "", err
	}
	// Hair: strands for cycles.py to build as curves (sertrace reads them
	// from the glTF's lines, which Blender would import as bare edges).
	removeHairFiles(dir)
	hs, err := exportHair(sc, dir, s.HairCut)
	if err != nil {
		return "", err
	}
	defer func() {
		// Cycles' copy of the scene, camera included, without the lines.
		if hs.Strands > 0 && err == nil {
			var cdoc map[string]any
			data, _ := json.Marshal(doc)
			json.Unmarshal(data, &cdoc)
			dropLines(cdoc)
			err = writeJSON(filepath.Join(dir, cyclesFile), cdoc)
		}
	}()
	if s.HairBlack { // after exportHair, which found the strands by their hair materials
		blackHair(doc)
	}
	if hs.Strands > 0 {
		fmt.Fprintf(os.Stderr, "%s: %d hair strands, %d segments, each cut in %d for Cycles' splines: they stray from the straight segments by %.3f%% of the radius on average, %.2f%% at most\n",
			filepath.Base(path), hs.Strands, hs.Segments, hs.Cut, 100*hs.MeanStray, 100*hs.MaxStray)
	}
	// The camera asked for, else the one sertrace would use (the file's
	// first, or the framing one), added under a name both renderers pick.
	cam := s.Camera
	if cam == nil {
		c := sc.Cameras[0]
		if c.Orthographic {
			return "", fmt.Errorf("%s: the camera is orthographic; give -camera", path)
		}
		cam = &lookAt{YFov: float64(c.YFov)}
		for k := 0; k < 3; k++ {
			cam.From[k] = c.Transform[12+k]
			cam.At[k] = c.Transform[12+k] - c.Transform[8+k]
		}
	}
	cams, _ := doc["cameras"].([]any)
	doc["cameras"] = append([]any{map[string]any{"name": cameraName, "type": "perspective", "perspective": map[string]any{
		"yfov": cam.YFov, "aspectRatio": float64(s.Width) / float64(s.Height), "znear": 0.01}}}, cams...)
	nodes, _ := doc["nodes"].([]any)
	for _, n := range nodes {
		if m, ok := n.(map[string]any); ok {
			if ci, ok := m["camera"].(float64); ok {
				m["camera"] = ci + 1
			}
		}
	}
	doc["nodes"] = append(nodes, map[string]any{"name": cameraName, "camera": 0, "matrix": cam.matrix()})
	scenes, _ := doc["scenes"].([]any)
	si := 0
	if v, ok := doc["scene"].(float64); ok {
		si = int(v)
	}
	if si >= len(scenes) {
		return "", fmt.Errorf("%s: no scene %d", path, si)
	}
	sn := scenes[si].(map[string]any)
	roots, _ := sn["nodes"].([]any)
	sn["nodes"] = append(roots, len(nodes))
	return out, writeJSON(out, doc)
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// splitGLB returns a GLB's JSON and binary chunks.
func splitGLB(data []byte) (js, bin []byte, err error) {
	if len(data) < 20 || binary.LittleEndian.Uint32(data[4:]) != 2 {
		return nil, nil, errors.New("not a version 2 GLB file")
	}
	for off := 12; off+8 <= len(data); {
		n, kind := int(binary.LittleEndian.Uint32(data[off:])), binary.LittleEndian.Uint32(data[off+4:])
		if n < 0 || off+8+n > len(data) {
			return nil, nil, errors.New("GLB chunk runs past the end of the file")
		}
		switch kind {
		case 0x4E4F534A: // JSON
			js = data[off+8 : off+8+n]
		case 0x004E4942: // BIN
			bin = data[off+8 : off+8+n]
		}
		off += 8 + n
	}
	if js == nil {
		return nil, nil, errors.New("GLB file without a JSON chunk")
	}
	return js, bin, nil
}

// copyResources copies the buffers and images a glTF file names (or a GLB's
// binary chunk) into dir, so the rewritten file finds them.
func copyResources(doc map[string]any, from, dir string, bin []byte) error {
	for _, key := range []string{"buffers", "images"} {
		list, _ := doc[key].([]any)
		for i, item := range list {
			m, _ := item.(map[string]any)
			uri, _ := m["uri"].(string)
			if key == "buffers" && i == 0 && uri == "" && bin != nil {
				m["uri"] = "glb.bin"
				if err := os.WriteFile(filepath.Join(dir, "glb.bin"), bin, 0o644); err != nil {
					return err
				}
				continue
			}
			if uri == "" || strings.HasPrefix(uri, "data:") {
				continue
			}
			rel, err := url.PathUnescape(uri)
			if err != nil || filepath.IsAbs(rel) || strings.Contains(rel, "..") {
				return fmt.Errorf("%s %d: uri %q is not a relative path inside the scene's folder", key, i, uri)
			}
			data, err := os.ReadFile(filepath.Join(from, rel))
			if err != nil {
				return err
			}
			dst := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// lambertian makes every material a pure Lambertian reflector of its base
// colour (texture included), keeping its emission and normal map: metallic
// 0, roughness 1, no specular layer, no other extension.
func lambertian(doc map[string]any) {
	mats, _ := doc["materials"].([]any)
	for _, item := range mats {
		m, _ := item.(map[string]any)
		if m == nil {
			continue
		}
		pbr, _ := m["pbrMetallicRoughness"].(map[string]any)
		if pbr == nil {
			pbr = map[string]any{}
			m["pbrMetallicRoughness"] = pbr
		}
		pbr["metallicFactor"], pbr["roughnessFactor"] = 0, 1
		delete(pbr, "metallicRoughnessTexture")
		exts := map[string]any{"KHR_materials_specular": map[string]any{"specularFactor": 0}}
		if old, ok := m["extensions"].(map[string]any); ok {
			if es, ok := old["KHR_materials_emissive_strength"]; ok {
				exts["KHR_materials_emissive_strength"] = es
			}
		}
		m["extensions"] = exts
		m["alphaMode"] = "OPAQUE"
	}
	for _, key := range []string{"extensionsUsed", "extensionsRequired"} {
		list, _ := doc[key].([]any)
		var keep []any
		for _, e := range list {
			name, _ := e.(string)
			if !strings.HasPrefix(name, "KHR_materials_") || name == "KHR_materials_emissive_strength" {
				keep = append(keep, e)
			}
		}
		if len(keep) > 0 {
			doc[key] = keep
		} else {
			delete(doc, key)
		}
	}
	useExtension(doc, "KHR_materials_specular")
}

// useExtension lists an extension in the document's extensionsUsed, once.
func useExtension(doc map[string]any, name string) {
	used, _ := doc["extensionsUsed"].([]any)
	if !slices.Contains(used, any(name)) {
		doc["extensionsUsed"] = append(used, name)
	}
}

// blackHair makes every hair material (extras.sertrace.hair) a black
// Lambertian with no specular layer: opaque strands that reflect nothing.
func blackHair(doc map[string]any) {
	mats, _ := doc["materials"].([]any)
	for _, item := range mats {
		m, _ := item.(map[string]any)
		extras, _ := m["extras"].(map[string]any)
		st, _ := extras["sertrace"].(map[string]any)
		if _, ok := st["hair"]; !ok {
			continue
		}
		delete(st, "hair")
		m["pbrMetallicRoughness"] = map[string]any{"baseColorFactor": []any{0, 0, 0, 1}, "metallicFactor": 0, "roughnessFactor": 1}
		m["extensions"] = map[string]any{"KHR_materials_specular": map[string]any{"specularFactor": 0}}
		m["alphaMode"] = "OPAQUE"
	}
	useExtension(doc, "KHR_materials_specular")
}

// dropLights removes KHR_lights_punctual from a glTF document: its lights
// and the nodes' references to them.
func dropLights(doc map[string]any) {
	const ext = "KHR_lights_punctual"
	if e, ok := doc["extensions"].(map[string]any); ok {
		delete(e, ext)
	}
	nodes, _ := doc["nodes"].([]any)
	for _, n := range nodes {
		if nm, ok := n.(map[string]any); ok {
			if e, ok := nm["extensions"].(map[string]any); ok {
				delete(e, ext)
			}
		}
	}
	for _, key := range []string{"extensionsUsed", "extensionsRequired"} {
		list, _ := doc[key].([]any)
		kept := list[:0]
		for _, v := range list {
			if v != ext {
				kept = append(kept, v)
			}
		}
		if list != nil {
			doc[key] = kept
		}
	}
}
