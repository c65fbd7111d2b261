package scene

import (
	"encoding/base64"
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
	doc := texturedDoc(dataURI(pngBytes(t, 1, 1))) // the fallback: one transparent black pixel
	doc["extensionsUsed"] = []any{"KHR_texture_basisu"}
	doc["extensionsRequired"] = []any{"KHR_texture_basisu"}
	doc["images"] = append(doc["images"].([]any), map[string]any{"uri": "data:image/ktx2;base64," + tinyKTX2})
	at(doc, "textures", 0)["extensions"] = map[string]any{"KHR_texture_basisu": map[string]any{"source": 1}}
	sc, err := Decode(encode(t, doc), "ktx2.gltf", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Warnings) > 0 || len(sc.Textures) != 1 {
		t.Fatalf("warnings %q, %d textures", sc.Warnings, len(sc.Textures))
	}
	tx := sc.Textures[0]
	want := []uint8{255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 128}
	if tx.Width != 2 || tx.Height != 2 || string(tx.Pixels) != string(want) {
		t.Errorf("texture %dx%d %v, want 2x2 %v", tx.Width, tx.Height, tx.Pixels, want)
	}
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
