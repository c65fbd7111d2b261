package scene

import (
	"encoding/base64"
	"strings"
	"testing"
)

// tinyWebP is a 2×2 lossless WebP (cwebp -lossless -exact): red, green /
// blue, white at half alpha.
const tinyWebP = "UklGRjAAAABXRUJQVlA4TCMAAAAvAUAAEB8gEEjeHzqN+RcQFPwfnYCg6LrlImYPwg0YIvofAgA="

// TestWebPTextures: EXT_texture_webp's image is used before the texture's
// fallback source, and a WebP decodes like a PNG; a WebP that does not
// decode is one clear error.
func TestWebPTextures(t *testing.T) {
	webp, _ := base64.StdEncoding.DecodeString(tinyWebP)
	doc := texturedDoc(dataURI(pngBytes(t, 1, 1))) // the fallback: one transparent black pixel
	doc["extensionsUsed"] = []any{"EXT_texture_webp"}
	doc["images"] = append(doc["images"].([]any), map[string]any{"uri": "data:image/webp;base64," + tinyWebP})
	at(doc, "textures", 0)["extensions"] = map[string]any{"EXT_texture_webp": map[string]any{"source": 1}}
	sc, err := Decode(encode(t, doc), "webp.gltf", nil)
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
	// A WebP without the extension is read too, and a broken one refused.
	if sc, err := Decode(encode(t, texturedDoc("data:image/webp;base64,"+tinyWebP)), "plain.gltf", nil); err != nil || sc.Textures[0].Width != 2 {
		t.Errorf("a WebP as the texture's source: %v", err)
	}
	broken := append([]byte{}, webp[:30]...)
	if _, err := Decode(encode(t, texturedDoc(dataURI(broken))), "broken.gltf", nil); err == nil || !strings.Contains(err.Error(), "broken.gltf") {
		t.Errorf("a truncated WebP: %v", err)
	}
}
