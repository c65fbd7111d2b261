package vulkan_test

import (
	"testing"

	"sertrace/render/furnace"
	"sertrace/render/vulkan"
)

// TestFurnaces: the CPU backend's furnaces (render/furnace), on every GPU
// path, at a quarter of its samples: 1 where nothing is lost, never above 1.
func TestFurnaces(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	cases, err := furnace.Cases(0.25)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range gpuPaths(t, d) {
		for _, c := range cases {
			t.Run(path+"/"+c.Name, func(t *testing.T) {
				res := furnace.Check(c, renderOn(t, onPath(d, path), c.Scene, c.Options))
				t.Logf("mean %.4f ± %.4f, darkest %.4f, brightest %.4f", res.Mean, res.MeanError, res.Min, res.Max)
				for _, p := range res.Problems {
					t.Error(p)
				}
			})
		}
	}
}
