package cpu

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"sertrace/render"
	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// TestReorderGroupsByShaderThenHint: the permutation keeps every path once,
// groups by shader first and the hint's low bits second, and is stable.
func TestReorderGroupsByShaderThenHint(t *testing.T) {
	sc := &scene.Scene{Materials: make([]scene.Material, 8)}
	for m := 0; m < 8; m++ {
		sc.Instances = append(sc.Instances, scene.Instance{Material: m})
	}
	r := &renderer{sc: sc, reorderBits: 2, hintFlags: layout.HintMaterial}
	_, r.keyMaterials = kernel.SortKeySpace(r.reorderBits, r.hintFlags, uint32(len(sc.Materials)))
	w := &worker{r: r}
	tri, sph := uint8(sbtHitGroup+layout.HitTriangles), uint8(sbtHitGroup+layout.HitSpheres)
	sbts := []uint8{tri, sbtMiss, sph, tri, tri, sph, tri, sbtMiss}
	insts := []int32{5, -1, 2, 1, 5, 6, 3, -1}
	w.hits = make([]HitObject, len(sbts))
	w.paths = make([]pathState, len(sbts))
	w.sortKeys = make([]uint64, len(sbts))
	for i := range sbts {
		w.hits[i] = HitObject{SBT: sbts[i], Hit: Hit{Instance: insts[i]}, Live: true}
	}
	order := []int32{0, 1, 2, 3, 4, 5, 6, 7}
	w.Reorder(order) // hint bits: material & 3
	// Miss (1, 7); triangles by material & 3: 5→1, 1→1, 5→1, 3→3 so 0, 3, 4, then 6; spheres: 2→2, 6→2: 2, 5.
	if want := []int32{1, 7, 0, 3, 4, 6, 2, 5}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	var s simt
	w.count(&s, []int32{0, 1, 2, 3, 4, 5, 6, 7}, order)
	if s.warps != 1 || s.passes != 3 || s.paths != 8 {
		t.Errorf("launch order: %+v", s)
	}
}

// TestCountWarpsOfLivePaths: the launch's warps are the runs of 32 lanes
// that hold live paths (gaps between them idle), each counting its distinct
// shaders and materials; the reordered paths fill warps side by side; and
// a wrapping stamp forgets no material.
func TestCountWarpsOfLivePaths(t *testing.T) {
	sc := &scene.Scene{Materials: make([]scene.Material, 4)}
	for m := 0; m < 4; m++ {
		sc.Instances = append(sc.Instances, scene.Instance{Material: m})
	}
	w := &worker{r: &renderer{sc: sc}, stamp: ^uint32(0) - 1}
	tri, sph := uint8(sbtHitGroup+layout.HitTriangles), uint8(sbtHitGroup+layout.HitSpheres)
	w.hits = make([]HitObject, 70)
	w.paths = make([]pathState, 70)
	// Warp 0: lanes 0 and 5, a triangle of material 0 and a miss. Warp 1:
	// lanes 40, 41 and 50, triangles of materials 1 and 2 and a sphere of
	// material 1. Warp 2: lane 69, a triangle of material 0.
	set := func(i int32, sbt uint8, inst int32) {
		w.hits[i] = HitObject{SBT: sbt, Hit: Hit{Instance: inst}, Live: true}
	}
	set(0, tri, 0)
	set(5, sbtMiss, -1)
	set(40, tri, 1)
	set(41, tri, 2)
	set(50, sph, 1)
	set(69, tri, 0)
	live := []int32{0, 5, 40, 41, 50, 69}
	var s simt
	w.count(&s, live, live)
	want := simt{paths: 6, warps: 3, passes: 2 + 2 + 1, materialsWarp: 2 + 2 + 1,
		// Side by side the six paths are one warp: two shaders and a miss,
		// materials 0, 1, 2 and the miss.
		warpsAfter: 1, passesAfter: 3, materialsWarpAfter: 4}
	if s != want {
		t.Errorf("counted %+v, want %+v", s, want)
	}
	if e := w.paths[40].simt; e != 3.0/(32*2) {
		t.Errorf("lane 40's efficiency %v, want 3 paths over 2 passes of 32 lanes", e)
	}
}

// TestReorderGroupsMaterialsInARealWave: on the hairy Cornell box, sorting
// by material hint leaves fewer materials per warp than launch order.
func TestReorderGroupsMaterialsInARealWave(t *testing.T) {
	sc := loadSample(t, "hairy-cornell")
	opts := render.Options{Width: 64, Height: 64, SPP: 2, MaxDepth: 4}
	stats := renderStats(t, sc, opts)
	b := stats.Bounces[1]
	if !(b.MaterialsPerWarpAfter < b.MaterialsPerWarp) || b.EfficiencyAfter < b.Efficiency || b.Paths == 0 {
		t.Errorf("bounce 1: %+v", b)
	}
}

// radixSort orders as a stable sort by key does, whichever bytes the keys
// differ in.
func TestRadixSortIsStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 200; round++ {
		n := rng.IntN(3000)
		keys := make([]uint64, n+5)
		masks := []uint64{0, 7, 0xff, 0x7_0000_0003, ^uint64(0)}
		mask := masks[round%len(masks)]
		for i := range keys {
			keys[i] = rng.Uint64() & mask
		}
		order := make([]int32, 0, n)
		for i := range n {
			if rng.IntN(4) != 0 { // a wave's live paths: some indices left out
				order = append(order, int32(i))
			}
		}
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		want := slices.Clone(order)
		slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(keys[a], keys[b]) })
		var differ uint64
		for _, i := range order {
			differ |= keys[i] ^ keys[order[0]]
		}
		if len(order) > 0 {
			radixSort(order, make([]int32, len(order)), keys, differ)
		}
		if !slices.Equal(order, want) {
			t.Fatalf("round %d (%d paths, keys masked %#x): radix order differs from a stable sort", round, len(order), mask)
		}
	}
}
