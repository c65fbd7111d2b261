package scene

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sertrace/internal/sharedscenes"
)

// FuzzDecode feeds the loader arbitrary bytes: it must return a scene or one
// line of error, never panic, hang or run out of memory. The seeds (run by
// every `go test`) are a valid scene, a generated GLB, every hostile case
// and the shared scenes' files; .ci/run fuzzes it for a while.
//
//	go test ./scene -run '^$' -fuzz FuzzDecode -fuzztime 5m
func FuzzDecode(f *testing.F) {
	f.Add(encode(f, validDoc()))
	f.Add(glb(encode(f, validDoc()), nil))
	f.Add(encode(f, texturedDoc(dataURI(pngBytes(f, 2, 2)))))
	f.Add(encode(f, texturedDoc("data:image/webp;base64,"+tinyWebP)))
	f.Add(encode(f, texturedDoc("data:image/ktx2;base64,"+tinyKTX2)))
	f.Add(encode(f, variantsDoc()))
	for _, c := range hostileCases() {
		f.Add(c.file(f))
	}
	if b, err := os.ReadFile(filepath.Join("..", "scenes", "cornell.glb")); err == nil {
		f.Add(b)
	}
	// The shared scenes' real files (those under 2 MB), where they are.
	if dir, ok := sharedscenes.Find(); ok {
		filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".gltf") || strings.HasSuffix(path, ".glb")) {
				return nil
			}
			if info, err := d.Info(); err == nil && info.Size() < 2<<20 {
				if b, err := os.ReadFile(path); err == nil {
					f.Add(b)
				}
			}
			return nil
		})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Decode(data, "fuzz.glb", NoResources)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "internal error") || strings.Contains(msg, "\n") {
				t.Fatalf("not one clean line: %s", msg)
			}
			return
		}
		// What loads must be safe to use: indices in range, bounds finite.
		for _, m := range sc.Meshes {
			for _, i := range m.Indices {
				if int(i) >= len(m.Positions) {
					t.Fatalf("index %d of %d vertices", i, len(m.Positions))
				}
			}
		}
		if len(sc.Cameras) == 0 {
			t.Fatal("no camera")
		}
	})
}
