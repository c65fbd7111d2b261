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
