package scene

import (
	"encoding/base64"
	"strings"
	"testing"
)

// tinyWebP is a 2×2 lossless WebP (cwebp -lossless -exact): red, green /
// blue, white at half alpha.
const tinyWebP = "UklGRjAAAABXRUJQVlA4TCMAAAAvAUAAEB8gEEjeHzqN+RcQFPwfnYCg6LrlImYPwg0YIvofAgA="

// preferredSourceDoc is a textured scene whose texture names, through
// extension ext, the image at uri before its fallback (one transparent
// black PNG pixel, image 0).
func preferredSourceDoc(t testing.TB, ext, uri string) map[string]any {
	doc := texturedDoc(dataURI(pngBytes(t, 1, 1)))
	doc["extensionsUsed"] = []any{ext}
	doc["images"] = append(doc["images"].([]any), map[string]any{"uri": uri})
	at(doc, "textures", 0)["extensions"] = map[string]any{ext: map[string]any{"source": 1}}
	return doc
}

// checkTinyTexture checks that the scene's one texture is the 2×2 test
// image (red, green / blue, white at half alpha) and it loaded with no
// warning.
func checkTinyTexture(t *testing.T, sc *Scene) {
	t.Helper()
	if len(sc.Warnings) > 0 || len(sc.Textures) != 1 {
		t.Fatalf("warnings %q, %d textures", sc.Warnings, len(sc.Textures))
	}
	tx := sc.Textures[0]
	want := []uint8{255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 128}
	if tx.Width != 2 || tx.Height != 2 || string(tx.Pixels) != string(want) {
		t.Errorf("texture %dx%d %v, want 2x2 %v", tx.Width, tx.Height, tx.Pixels, want)
	}
}

// TestWebPTextures: EXT_texture_webp's image is used before the texture's
// fallback source, and a WebP decodes like a PNG; a WebP that does not
// decode is one clear error.
func TestWebPTextures(t *testing.T) {
	webp, _ := base64.StdEncoding.DecodeString(tinyWebP)
	sc, err := Decode(encode(t, preferredSourceDoc(t, "EXT_texture_webp", "data:image/webp;base64,"+tinyWebP)), "webp.gltf", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkTinyTexture(t, sc)
	// A WebP without the extension is read too, and a broken one refused.
	if sc, err := Decode(encode(t, texturedDoc("data:image/webp;base64,"+tinyWebP)), "plain.gltf", nil); err != nil || sc.Textures[0].Width != 2 {
		t.Errorf("a WebP as the texture's source: %v", err)
	}
	broken := append([]byte{}, webp[:30]...)
	if _, err := Decode(encode(t, texturedDoc(dataURI(broken))), "broken.gltf", nil); err == nil || !strings.Contains(err.Error(), "broken.gltf") {
		t.Errorf("a truncated WebP: %v", err)
	}
}

// FuzzDecodeImage feeds the texture decoder arbitrary bytes (PNG, JPEG,
// WebP, KTX2): an image within the budget it claims, or an error; never a
// panic or an allocation of what a header claims.
//
//	go test ./scene -run '^$' -fuzz FuzzDecodeImage -fuzztime 5m
func FuzzDecodeImage(f *testing.F) {
	webp, _ := base64.StdEncoding.DecodeString(tinyWebP)
	ktx, _ := base64.StdEncoding.DecodeString(tinyKTX2)
	f.Add(pngBytes(f, 2, 2))
	f.Add(webp)
	f.Add(ktx)
	f.Fuzz(func(t *testing.T, data []byte) {
		var total int64
		img, err := decodeImage(data, &total)
		if err != nil {
			return
		}
		if img.w < 1 || img.h < 1 || len(img.pixels) != 4*img.w*img.h || total != int64(len(img.pixels)) {
			t.Fatalf("%dx%d image of %d bytes, %d counted", img.w, img.h, len(img.pixels), total)
		}
	})
}
