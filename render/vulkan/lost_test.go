package vulkan

import (
	"context"
	"errors"
	"testing"

	"sertrace/render"
	"sertrace/scene"
)

// TestDeviceLossKeepsSamples: when the device is lost mid-render, the
// launches completed before stay in the film, which is marked partial, and
// the error says the device was lost.
func TestDeviceLossKeepsSamples(t *testing.T) {
	dev := deviceFor(t, PathRT)
	sc, err := scene.Load("../../scenes/cornell.glb")
	if err != nil {
		t.Fatal(err)
	}
	loseDeviceAfter = 2
	defer func() { loseDeviceAfter = 0 }()
	opts := render.Options{Width: 16, Height: 16, SPP: 64, MaxDepth: 4}
	film := render.NewFilm(opts.Width, opts.Height)
	_, err = render.Render(context.Background(), Backend{Path: PathRT, Device: dev.Index}, sc, opts, film, nil)
	if !errors.Is(err, ErrDeviceLost) {
		t.Fatalf("error %v, want a lost device", err)
	}
	if idleDevice() != nil {
		t.Error("the lost device went back to the pool")
	}
	// Launches of 1 and 2 samples per pixel.
	if film.Samples != 3 || !film.Partial {
		t.Fatalf("film has %d samples per pixel, partial %v; want the first two launches' and partial", film.Samples, film.Partial)
	}
	var sum float64
	for _, v := range film.Floats(render.LayerBeauty) {
		sum += v
	}
	if sum <= 0 {
		t.Fatal("the kept samples are black")
	}
}
