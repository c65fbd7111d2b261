package kernel

import "sertrace/render/layout"

// The reordering of threads before shading, as the ser path's raygen
// (reorderThreadNV), the wavefronts' counting sort and the CPU emulator
// all do it: bits and flags are the launch's Params.ReorderBits and
// HintFlags (render.Reorder.Hint).

// ReorderHint is the coherence hint of a hit object: its material (a miss:
// 0) and, with the coherence scheme (flags has HintCoherence and bits
// leaves room), the path's coherence bits above the material's low bits:
// it ends here (a miss), it survived Russian roulette, it sampled a light
// at its last vertex (Falcor's).
func ReorderHint(miss bool, material, events, bits, flags uint32) uint32 {
	hint := material
	if miss {
		hint = 0
	}
	if flags&layout.HintCoherence != 0 && bits > layout.CoherenceBits {
		low := bits - layout.CoherenceBits
		coherence := (events & 3) << 1
		if miss {
			coherence |= 1
		}
		hint = hint&(1<<low-1) | coherence<<low
	}
	return hint
}

// SortKey is a hit's place in the order in which reorderThreadNV(hitObject,
// hint, bits) groups threads: by shader first (0 a miss, 1 + each hit
// group), then by the hint's low bits, the most significant first (with
// the coherence scheme its coherence bits, then the material's). The keys
// are dense, for the wavefronts' counting sort: keyMaterials material
// values per shader and coherence class (SortKeySpace).
func SortKey(shader, hint, bits, flags, keyMaterials uint32) uint32 {
	if bits == 0 || bits == layout.NoReorder {
		return shader
	}
	hint &= 1<<bits - 1 // what reorderThreadNV honours
	low, classes := bits, uint32(1)
	if flags&layout.HintCoherence != 0 && bits > layout.CoherenceBits {
		low, classes = bits-layout.CoherenceBits, 1<<layout.CoherenceBits
	}
	return (shader*classes+hint>>low)*keyMaterials + hint&(1<<low-1)
}

// SortKeySpace is the size of SortKey's key space over a scene's
// materials: the keys, and the material values each shader and coherence
// class tells apart (the hint's material bits, or fewer where the scene
// has fewer materials).
func SortKeySpace(bits, flags, materials uint32) (keys, materialKeys uint32) {
	shaders := uint32(layout.HitGroupCount) + 1 // a miss, then each hit group
	if bits == 0 || bits == layout.NoReorder {
		return shaders, 1 // by shader only, or not sorted
	}
	low, classes := bits, uint32(1)
	if flags&layout.HintCoherence != 0 && bits > layout.CoherenceBits {
		low, classes = bits-layout.CoherenceBits, 1<<layout.CoherenceBits
	}
	materialKeys = max(1, min(materials, 1<<low))
	return shaders * classes * materialKeys, materialKeys
}
