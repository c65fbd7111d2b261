package render

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"sertrace/scene"
)

// Coverage is a film's Cryptomatte: per pixel, how many of its samples'
// first visible hits (after alpha and stochastic transparency) were each
// instance, exact integers that add in any order, so that passes, bands,
// checkpoints and slices give the same counts; and what the instances are
// named by, for the mattes the outputs write (cryptomatte.go).
type Coverage struct {
	// Dense holds CoverageSlots counts a pixel: instance+1 in the high 32
	// bits, the count in the low; 0 is an empty slot. A pixel's slots fill
	// from the first.
	Dense []uint64
	// More holds a pixel's counts past its slots (a pixel that saw more
	// instances), in the same form.
	More map[int][]uint64
	Cryptomatte
	mu sync.Mutex // guards More while workers add other pixels
}

// Cryptomatte is what a render's Cryptomatte mattes are made of: the
// named things the counts count (Names: each object, material and asset
// that instances are, once; the counts' IDs are their index + 1) and which
// one each instance is (Of: its ID); the mattes the outputs write
// (AOVCrypto*) and their ranks. Instances named alike (a mesh's
// primitives, EXT_mesh_gpu_instancing's copies) count as one, so that a
// pixel holds as many counts as it sees named things.
type Cryptomatte struct {
	Names  []CoverageNames
	Of     []uint32 `json:"-"` // per instance (a film read from a slice has none: it takes no samples)
	Mattes []AOV
	Levels int
}

// CoverageNames are what an instance is in each Cryptomatte matte.
type CoverageNames struct{ Object, Material, Asset string }

// CoverageSlots is how many instances a pixel counts in Coverage.Dense.
const CoverageSlots = 4

// NewCoverage makes empty counts for n pixels.
func NewCoverage(n int) *Coverage { return &Coverage{Dense: make([]uint64, CoverageSlots*n)} }

// Add adds count samples of instance id (+1) to pixel px; workers may add
// to other pixels at once.
func (c *Coverage) Add(px int, id, count uint32) {
	slots := c.Dense[CoverageSlots*px : CoverageSlots*(px+1)]
	for i, w := range slots {
		switch {
		case w == 0:
			slots[i] = uint64(id)<<32 | uint64(count)
			return
		case uint32(w>>32) == id:
			slots[i] = w + uint64(count)
			return
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	more := c.More[px]
	for i, w := range more {
		if uint32(w>>32) == id {
			more[i] = w + uint64(count)
			return
		}
	}
	if c.More == nil {
		c.More = map[int][]uint64{}
	}
	c.More[px] = append(more, uint64(id)<<32|uint64(count))
}

// AddSamples counts the first instances (+1; 0: the camera saw nothing,
// not counted) of pixel px's samples of a pass, instances, into its
// counts, by the named thing each is (Of): what the CPU's tiles and the
// GPU's launches both hand over (without Of, each instance is a thing of
// its own). counts is scratch, returned for the next pixel.
func (c *Coverage) AddSamples(px int, instances []uint32, counts []uint64) []uint64 {
	counts = counts[:0]
next:
	for _, inst := range instances {
		if inst == 0 {
			continue
		}
		id := inst
		if len(c.Of) > 0 {
			id = c.Of[inst-1]
		}
		for k, w := range counts {
			if uint32(w>>32) == id {
				counts[k]++
				continue next
			}
		}
		counts = append(counts, uint64(id)<<32|1)
	}
	for _, w := range counts {
		c.Add(px, uint32(w>>32), uint32(w))
	}
	return counts
}

// Pixel appends pixel px's counts (instance+1 << 32 | count) to dst.
func (c *Coverage) Pixel(px int, dst []uint64) []uint64 {
	for _, w := range c.Dense[CoverageSlots*px : CoverageSlots*(px+1)] {
		if w == 0 {
			return dst
		}
		dst = append(dst, w)
	}
	return append(dst, c.More[px]...)
}

// add adds o's counts, of a film of the same size, to c's.
func (c *Coverage) add(o *Coverage) {
	n := len(c.Dense) / CoverageSlots
	var buf []uint64
	for px := range n {
		buf = o.Pixel(px, buf[:0])
		for _, w := range buf {
			c.Add(px, uint32(w>>32), uint32(w))
		}
	}
}

// reset empties the counts, keeping their memory.
func (c *Coverage) reset() {
	clear(c.Dense)
	c.More = nil
}

// Equal reports whether two films' counts are the same, whatever the
// order they were counted in.
func (c *Coverage) Equal(o *Coverage) bool {
	if len(c.Dense) != len(o.Dense) {
		return false
	}
	var a, b []uint64
	for px := range len(c.Dense) / CoverageSlots {
		a, b = c.Pixel(px, a[:0]), o.Pixel(px, b[:0])
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			return false
		}
	}
	return true
}

// whole reports whether counts read back (a checkpoint's, a slice's) are
// well formed for n pixels of instances instances.
func (c *Coverage) whole(n, instances int) bool {
	if len(c.Dense) != CoverageSlots*n || len(c.Names) != instances {
		return false
	}
	ok := func(w uint64) bool { id := w >> 32; return id >= 1 && id <= uint64(instances) && uint32(w) > 0 }
	for px := range n {
		empty := false
		for _, w := range c.Dense[CoverageSlots*px : CoverageSlots*(px+1)] {
			switch {
			case w == 0:
				empty = true
			case empty || !ok(w):
				return false
			}
		}
		if more := c.More[px]; len(more) > 0 && empty {
			return false
		}
	}
	for px, more := range maps.All(c.More) {
		if px < 0 || px >= n || len(more) == 0 {
			return false
		}
		for _, w := range more {
			if !ok(w) {
				return false
			}
		}
	}
	return true
}

// MaxCryptomatteLevels is the most ranks a matte keeps a pixel
// (--cryptomatte-levels), DefaultCryptomatteLevels what it keeps unless
// told (Cryptomatte's customary 6).
const (
	MaxCryptomatteLevels     = 16
	DefaultCryptomatteLevels = 6
)

// The Cryptomatte AOVs: the mattes by object (glTF node), material and
// asset (top-level node), layers of the beauty's EXR.
const (
	AOVCryptoObject   AOV = "cryptomatte_object"
	AOVCryptoMaterial AOV = "cryptomatte_material"
	AOVCryptoAsset    AOV = "cryptomatte_asset"
)

// CryptoAOVs are the Cryptomatte outputs, which need the film's coverage.
var CryptoAOVs = []AOV{AOVCryptoObject, AOVCryptoMaterial, AOVCryptoAsset}

// CryptoLayer is the EXR layer a Cryptomatte AOV is written as: the names
// Blender, Nuke and the other readers know.
func CryptoLayer(a AOV) string {
	switch a {
	case AOVCryptoMaterial:
		return "CryptoMaterial"
	case AOVCryptoAsset:
		return "CryptoAsset"
	}
	return "CryptoObject"
}

// CryptomatteOf is what sc's instances are named by in the mattes, with
// levels ranks (0: DefaultCryptomatteLevels); the mattes are the outputs'
// to choose (Film.Coverage).
func CryptomatteOf(sc *scene.Scene, levels int) Cryptomatte {
	c := Cryptomatte{Of: make([]uint32, len(sc.Instances)), Levels: cryptomatteLevels(levels)}
	ids := map[CoverageNames]uint32{}
	for i, in := range sc.Instances {
		n := CoverageNames{Object: sc.ObjectName(i), Material: sc.MaterialName(in.Material), Asset: sc.AssetName(i)}
		id, ok := ids[n]
		if !ok {
			c.Names = append(c.Names, n)
			id = uint32(len(c.Names))
			ids[n] = id
		}
		c.Of[i] = id
	}
	return c
}

// name is what instance id (+1) is named in matte a.
func (c *Cryptomatte) name(a AOV, id uint32) string {
	n := &c.Names[id-1]
	switch a {
	case AOVCryptoMaterial:
		return n.Material
	case AOVCryptoAsset:
		return n.Asset
	}
	return n.Object
}

// matteNames are the names matte a holds, each once, sorted (its
// manifest).
func (c *Cryptomatte) matteNames(a AOV) []string {
	var names []string
	for id := range c.Names {
		names = append(names, c.name(a, uint32(id+1)))
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// maxSlots is the most counts any pixel holds (at least 1).
func (c *Coverage) maxSlots() int {
	m := 1
	var counts []uint64
	for px := range len(c.Dense) / CoverageSlots {
		counts = c.Pixel(px, counts[:0])
		m = max(m, len(counts))
	}
	return m
}

// dense is the counts, slots a pixel (at least maxSlots), 0 where a
// pixel has fewer: a slice's coverage channels.
func (c *Coverage) dense(slots int) []uint64 {
	n := len(c.Dense) / CoverageSlots
	out := make([]uint64, slots*n)
	var counts []uint64
	for px := range n {
		counts = c.Pixel(px, counts[:0])
		copy(out[slots*px:slots*(px+1)], counts)
	}
	return out
}

// fromDense adds counts read back (dense's form) of instances instances.
func (c *Coverage) fromDense(words []uint64, slots, instances int) error {
	for i, w := range words {
		switch id := w >> 32; {
		case w == 0:
		case id < 1 || id > uint64(instances) || uint32(w) == 0:
			return fmt.Errorf("pixel %d's Cryptomatte counts are not of its %d instances", i/slots, instances)
		default:
			c.Add(i/slots, uint32(id), uint32(w))
		}
	}
	return nil
}

// cryptomatteLevels is the ranks the setting levels asks for.
func cryptomatteLevels(levels int) int {
	if levels <= 0 {
		return DefaultCryptomatteLevels
	}
	return levels
}
