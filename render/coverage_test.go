package render

import (
	"testing"

	"sertrace/scene"
)

// TestCryptomatteCountsNamedThings: instances named alike in every matte
// (a node's primitives of one material, its instanced copies) count as one
// named thing, so a pixel holds as many counts as it sees things.
func TestCryptomatteCountsNamedThings(t *testing.T) {
	sc, err := scene.Generate("hairy-cornell")
	if err != nil {
		t.Fatal(err)
	}
	// A second copy of the tall box: one more instance, no more names.
	box := -1
	for i := range sc.Instances {
		if sc.ObjectName(i) == "tall box" {
			box = i
			sc.Instances = append(sc.Instances, sc.Instances[i])
			break
		}
	}
	c := CryptomatteOf(sc, 0)
	if c.Levels != DefaultCryptomatteLevels || len(c.Of) != len(sc.Instances) || len(c.Names) >= len(sc.Instances) {
		t.Fatalf("%d names of %d instances, levels %d", len(c.Names), len(sc.Instances), c.Levels)
	}
	seen := map[CoverageNames]uint32{}
	for i, id := range c.Of {
		n := c.Names[id-1]
		if n.Object != sc.ObjectName(i) || n.Material != sc.MaterialName(sc.Instances[i].Material) || n.Asset != sc.AssetName(i) {
			t.Fatalf("instance %d is %+v", i, n)
		}
		if other, ok := seen[n]; ok && other != id {
			t.Fatalf("%+v has IDs %d and %d", n, other, id)
		}
		seen[n] = id
	}
	if len(seen) != len(c.Names) {
		t.Errorf("%d names, %d of them used", len(c.Names), len(seen))
	}
	cov := NewCoverage(1)
	cov.Cryptomatte = c
	cov.AddSamples(0, []uint32{uint32(len(sc.Instances)), uint32(box + 1), 0}, nil) // the copy, the box, a miss
	if counts := cov.Pixel(0, nil); len(counts) != 1 || uint32(counts[0]) != 2 {
		t.Errorf("a sample of each copy counts %x, not one thing's 2", counts)
	}
}
