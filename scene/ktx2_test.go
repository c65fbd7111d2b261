package scene

import (
	"encoding/base64"
	"encoding/binary"
	"strings"
	"testing"
)

// tinyKTX2 is a 2×2 KTX 2.0 texture of R8G8B8A8_SRGB, zlib supercompressed
// (red, green / blue, white at half alpha), as ktx2's tests write one.
const tinyKTX2 = "q0tUWCAyMLsNChoKKwAAAAEAAAACAAAAAgAAAAAAAAAAAAAAAQAAAAEAAAADAAAAaAAAABwAAACEAAAAGAAAAAAAAAAAAAAAAAAAAAAAAACcAAAAAAAAABYAAAAAAAAAEAAAAAAAAAAcAAAAAAAAAAIAGAABAAAAAAAAAAAAAAAAAAAAEgAAAEtUWG9yaWVudGF0aW9uAHJkAAAAeJz6z8DwHwwZ/oNAAyAAAP//RUsJeA=="

// TestKTX2Textures: KHR_texture_basisu's image is used before the
// texture's fallback source, and decodes like a PNG; a KTX2 that does not
// decode is one error naming the file.
func TestKTX2Textures(t *testing.T) {
	doc := preferredSourceDoc(t, "KHR_texture_basisu", "data:image/ktx2;base64,"+tinyKTX2)
	doc["extensionsRequired"] = []any{"KHR_texture_basisu"}
	sc, err := Decode(encode(t, doc), "ktx2.gltf", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkTinyTexture(t, sc)
	ktx, _ := base64.StdEncoding.DecodeString(tinyKTX2)
	broken := append([]byte{}, ktx[:len(ktx)-6]...)
	// A KTX2 that does not decode leaves the texture's fallback image,
	// saying so.
	doc["images"].([]any)[1] = map[string]any{"uri": dataURI(broken)}
	sc, err = Decode(encode(t, doc), "fallback.gltf", nil)
	if err != nil || len(sc.Warnings) != 1 || !strings.Contains(sc.Warnings[0], "fallback image 0") || sc.Textures[0].Width != 1 {
		t.Errorf("a broken KTX2 with a fallback: %v, warnings %q", err, sc.Warnings)
	}
	_, err = Decode(encode(t, texturedDoc(dataURI(broken))), "broken.gltf", nil)
	if err == nil || !strings.Contains(err.Error(), "broken.gltf") || !strings.Contains(err.Error(), "KTX2") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a truncated KTX2: %v", err)
	}
}

// TestFailedImageCountsOnce: twenty textures share one KTX2 that claims
// 8192² pixels (256 MiB decoded) but does not decode, each with a 1×1 PNG
// fallback of its own. The KTX2 fails once and costs nothing: the scene
// loads on its fallbacks. (When each reference decoded it again and
// counted its size, the budget of 4 GiB ran out at the seventeenth and
// the fallbacks after it were refused: "textures take more than 4 GiB".)
func TestFailedImageCountsOnce(t *testing.T) {
	ktx, _ := base64.StdEncoding.DecodeString(tinyKTX2)
	huge := append([]byte{}, ktx...)               // its 2×2 level then falls short of the size it claims
	binary.LittleEndian.PutUint32(huge[20:], 8192) // pixelWidth
	binary.LittleEndian.PutUint32(huge[24:], 8192) // pixelHeight
	doc := texturedDoc(dataURI(huge))
	doc["extensionsUsed"] = []any{"KHR_texture_basisu"}
	images := []any{map[string]any{"uri": dataURI(huge)}}
	var textures, materials, prims []any
	prim := at(doc, "meshes", 0, "primitives", 0)
	for k := range 20 {
		images = append(images, map[string]any{"uri": dataURI(pngBytes(t, 1, 1))})
		textures = append(textures, map[string]any{"source": k + 1, "extensions": map[string]any{"KHR_texture_basisu": map[string]any{"source": 0}}})
		materials = append(materials, map[string]any{"pbrMetallicRoughness": map[string]any{"baseColorTexture": map[string]any{"index": k}}})
		p := map[string]any{}
		for key, v := range prim {
			p[key] = v
		}
		p["material"] = k
		prims = append(prims, p)
	}
	doc["images"], doc["textures"], doc["materials"] = images, textures, materials
	at(doc, "meshes", 0)["primitives"] = prims
	sc, err := Decode(encode(t, doc), "shared.gltf", nil)
	if err != nil {
		t.Fatalf("the scene was refused: %v", err)
	}
	if len(sc.Textures) != 20 || len(sc.Warnings) != 20 || !strings.Contains(sc.Warnings[19], "fallback image 20") {
		t.Errorf("%d textures, warnings %q", len(sc.Textures), sc.Warnings)
	}
}
