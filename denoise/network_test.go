package denoise_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"sertrace/denoise"
	"sertrace/denoise/unet"
)

// network is the network denoiser with the installed weights, or a skip
// (a failure under CI, whose .ci/run installs them).
func network(t *testing.T, passes int) denoise.Method {
	t.Helper()
	m, ok := installedNetwork(t, passes)
	if !ok {
		t.Skipf("no network weights in %s (sertrace weights fetch)", unet.Dir())
	}
	return m
}

// installedNetwork is the network denoiser, or false when its weights are
// not installed (a failure under CI).
func installedNetwork(t *testing.T, passes int) (denoise.Method, bool) {
	t.Helper()
	if missing := unet.Missing(unet.Dir()); missing != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s lacks %v: .ci/run installs them with sertrace weights fetch", unet.Dir(), missing)
		}
		return nil, false
	}
	m, err := denoise.Choose("network", passes, "cpu", -1, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	return m, true
}

// TestNetworkKeepsTheDirectView: given the split, the network filters the
// light the first hit reflected and keeps what the camera saw directly: a
// pixel-sized emitter in a noisy field stays as bright as it was (the
// network alone takes it for a firefly).
func TestNetworkKeepsTheDirectView(t *testing.T) {
	w, h := 32, 32
	n := w * h
	img := &denoise.Image{Width: w, Height: h, Beauty: make([]float32, 3*n), Albedo: make([]float32, 3*n), Normal: make([]float32, 3*n),
		Depth: make([]float32, n), Diffuse: make([]float32, 3*n), Specular: make([]float32, 3*n),
		DiffuseAlbedo: make([]float32, 3*n), SpecularAlbedo: make([]float32, 3*n)}
	rng := rand.New(rand.NewPCG(9, 10))
	emitter := 16*w + 16
	for i := 0; i < n; i++ {
		img.Normal[3*i+2], img.Depth[i] = 1, 1
		for c := 0; c < 3; c++ {
			img.Albedo[3*i+c], img.DiffuseAlbedo[3*i+c] = 0.5, 0.5
			img.Diffuse[3*i+c] = 0.5 * 0.4 * float32(rng.ExpFloat64())
			img.Beauty[3*i+c] = img.Diffuse[3*i+c]
			if i == emitter {
				img.Beauty[3*i+c] += 5 // seen directly: not in the split
			}
		}
	}
	out, err := network(t, 1)(context.Background(), img)
	if err != nil {
		t.Fatal(err)
	}
	if v := out[3*emitter]; v < 5 || v > 5.5 {
		t.Errorf("the emitter pixel: %v, want 5 and the filtered light around it (about 0.2)", v)
	}
	var mean float64
	for i := 0; i < n; i++ {
		if i != emitter {
			mean += float64(out[3*i]) / float64(n-1)
		}
	}
	if math.Abs(mean-0.2) > 0.03 {
		t.Errorf("the reflected light's mean: %.3f, want 0.2", mean)
	}
	// The whole beauty through the network loses most of the emitter.
	img.Diffuse, img.Specular = nil, nil
	whole, err := network(t, 1)(context.Background(), img)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the emitter: %.3f with the split, %.3f without", out[3*emitter], whole[3*emitter])
	if whole[3*emitter] > 1 {
		t.Errorf("without the split the network kept the emitter (%v): this test no longer shows why the split matters", whole[3*emitter])
	}
}

// TestNetworkChoice: the names and pass counts Choose takes, and the error
// for the others.
func TestNetworkChoice(t *testing.T) {
	for _, c := range []struct {
		name   string
		passes int
		want   string
	}{{"oidn", 1, `denoiser "oidn": auto, network, regression`}, {"network", 3, "denoise passes 3: 1, 2, 4 or 8"}} {
		if err := denoise.CheckChoice(c.name, c.passes); err == nil || err.Error() != c.want {
			t.Errorf("%s %d: %v, want %q", c.name, c.passes, err, c.want)
		}
	}
	t.Setenv("SERTRACE_WEIGHTS", t.TempDir())
	err := denoise.Ready("network")
	if err == nil || !strings.Contains(err.Error(), "sertrace weights fetch") {
		t.Errorf("network without weights: %v", err)
	}
	if denoise.Resolve("auto") != "regression" {
		t.Error("auto without weights is not the regression filter")
	}
	var notes []string
	m, err := denoise.Choose("auto", 1, "cpu", -1, func(s string) { notes = append(notes, s) })
	if err != nil || m == nil || len(notes) != 1 || !strings.Contains(notes[0], "using the regression filter") {
		t.Errorf("auto without weights: %v %v", err, notes)
	}
}

// TestNetworkStops: the network stops when its context is done, with the
// context's error, instead of running to its end.
func TestNetworkStops(t *testing.T) {
	m := network(t, 8)
	w, h := 256, 256 // seconds of work: the cancel lands in the middle of it
	n := w * h
	img := &denoise.Image{Width: w, Height: h, Beauty: make([]float32, 3*n), Albedo: make([]float32, 3*n), Normal: make([]float32, 3*n), Depth: make([]float32, n)}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := m(ctx, img); !errors.Is(err, context.Canceled) {
		t.Errorf("a network cancelled while it runs: %v", err)
	}
}

// TestBadValuesStayPut: a NaN or an infinity in the light (an EXR from
// elsewhere) leaves every output pixel finite, whichever denoiser runs,
// and the caller's image as it was.
func TestBadValuesStayPut(t *testing.T) {
	w, h := 16, 16
	n := w * h
	img := &denoise.Image{Width: w, Height: h, Beauty: make([]float32, 3*n), Albedo: make([]float32, 3*n), Normal: make([]float32, 3*n), Depth: make([]float32, n)}
	for i := range img.Beauty {
		img.Beauty[i], img.Albedo[i] = 0.5, 0.5
	}
	for i := 0; i < n; i++ {
		img.Normal[3*i+2], img.Depth[i] = 1, 1
	}
	// With the split, so that what the camera saw directly (the beauty less
	// the split) is bad too.
	img.Diffuse, img.Specular = slices.Clone(img.Beauty), make([]float32, 3*n)
	img.DiffuseAlbedo, img.SpecularAlbedo = slices.Clone(img.Albedo), make([]float32, 3*n)
	img.Beauty[40] = float32(math.NaN())
	img.Beauty[300] = float32(math.Inf(1))
	img.Specular[7] = float32(math.NaN())
	methods := map[string]denoise.Method{"regression": denoise.Regression(denoise.Defaults, denoise.RegressCPU)}
	if m, ok := installedNetwork(t, 1); ok {
		methods["network"] = m
	}
	for name, m := range methods {
		out, err := m(context.Background(), img)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range out {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("%s: value %d is %v", name, i, v)
			}
		}
	}
	if !math.IsNaN(float64(img.Beauty[40])) {
		t.Error("the caller's image was changed")
	}
}
