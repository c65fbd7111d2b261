package cpu

import (
	"bytes"
	"context"
	"encoding/gob"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"sertrace/render"
	"sertrace/scene"
)

// TestCutPassCompletesToTheSameSums: a render cancelled in the middle of a
// pass keeps the pixels that pass finished; each pixel's image is its own
// samples' mean (the finished pixels the three samples', the others the
// one's, as uncut renders of 3 and 1 samples make them); kept in a
// checkpoint (gob) and resumed, the film completes the cut pass and ends
// with every layer's sums those of a render never cut, bit for bit (not
// the SIMT efficiency, which depends on the waves). With WholePasses the
// cancelled pass leaves nothing.
func TestCutPassCompletesToTheSameSums(t *testing.T) {
	sc, err := scene.Load(filepath.Join("..", "..", "scenes", "hairy-cornell.glb"))
	if err != nil {
		t.Fatal(err)
	}
	opts := render.Options{Width: 64, Height: 48, SPP: 4, MaxDepth: 6, Seed: 3, Threads: 2}
	uncut := renderFilm(t, sc, opts)
	one, three := opts, opts
	one.SPP, three.SPP = 1, 3
	after1, after3 := renderFilm(t, sc, one), renderFilm(t, sc, three)

	cut := func(o render.Options) *render.Film {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var once sync.Once
		film := render.NewFilm(o.Width, o.Height)
		// Passes of 1, 2 and 1 samples: cancelled once a tile of the
		// second (0.25 .. 0.75 of the render) is done.
		stats, err := render.Render(ctx, Backend{}, sc, o, film, func(f float64) {
			if f > 0.3 {
				once.Do(cancel)
			}
		})
		if err == nil || !stats.Partial {
			t.Fatalf("the render was not cut: %v", err)
		}
		return film
	}
	film := cut(opts)
	if !film.Cut() || film.Samples != 1 || film.Ahead != 2 {
		t.Fatalf("cancelled in the second pass, the film holds %s (Samples %d, Ahead %d)", film.SamplesHeld(), film.Samples, film.Ahead)
	}
	t.Logf("cut: %s", film.SamplesHeld())
	got, _ := film.Resolve(render.AOVBeauty)
	want1, _ := after1.Resolve(render.AOVBeauty)
	want3, _ := after3.Resolve(render.AOVBeauty)
	ahead := 0
	for px := range opts.Width * opts.Height {
		want := want1
		if film.IsAhead(px) {
			want, ahead = want3, ahead+1
		}
		if !slices.Equal(got[3*px:3*px+3], want[3*px:3*px+3]) {
			t.Fatalf("pixel %d (ahead %v) reads %v, want %v", px, film.IsAhead(px), got[3*px:3*px+3], want[3*px:3*px+3])
		}
	}
	if ahead == 0 || ahead == opts.Width*opts.Height || ahead%(tileSize*tileSize) != 0 {
		t.Fatalf("%d pixels ahead: not whole tiles of some of the image", ahead)
	}

	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(film); err != nil {
		t.Fatal(err)
	}
	var resumed render.Film
	if err := gob.NewDecoder(&b).Decode(&resumed); err != nil || !resumed.Whole() {
		t.Fatalf("the cut film does not come back from gob whole: %v", err)
	}
	resumed.Partial = false
	if _, err := render.Render(context.Background(), Backend{}, sc, opts, &resumed, nil); err != nil {
		t.Fatal(err)
	}
	if resumed.Cut() || resumed.Samples != opts.SPP {
		t.Fatalf("resumed, the film holds %s", resumed.SamplesHeld())
	}
	for l := range render.NumLayers {
		if l == render.LayerSIMT {
			continue
		}
		x, y := &uncut.Sums[l], &resumed.Sums[l]
		if !x.Equal(y) {
			t.Errorf("%s: the resumed cut render's sums differ from the uncut one's", render.FilmLayers[l].Name)
		}
	}

	whole := opts
	whole.WholePasses = true
	if film := cut(whole); film.Cut() || film.Samples != 1 {
		t.Errorf("with whole passes, the cancelled render holds %s, want 1 sample per pixel", film.SamplesHeld())
	}
}
