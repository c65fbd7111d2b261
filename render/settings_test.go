package render

import (
	"strings"
	"testing"

	"sertrace/render/layout"
)

// TestParseReorder: every scheme resolves once into a mode and its hint
// bits, at most the 16 that NVIDIA honours; and HintBits is what each
// backend passes on.
func TestParseReorder(t *testing.T) {
	for _, c := range []struct {
		in       string
		want     Reorder
		hintBits int
	}{
		{"", Reorder{}, 16},
		{"material", Reorder{}, 16},
		{"sort", Reorder{}, 16},
		{"material:16", Reorder{}, 16}, // one value per scheme: the zero Reorder
		{"material:5", Reorder{ReorderMaterial, 5}, 5},
		{"coherence", Reorder{ReorderCoherence, 0}, 16},
		{"coherence:16", Reorder{ReorderCoherence, 0}, 16},
		{"coherence:4", Reorder{ReorderCoherence, 4}, 4},
		{"shader", Reorder{Mode: ReorderShader}, 0},
		{"none", Reorder{Mode: ReorderNone}, -1},
		{"off", Reorder{Mode: ReorderNone}, -1},
	} {
		got, err := ParseReorder(c.in)
		if err != nil || got != c.want || got.HintBits() != c.hintBits {
			t.Errorf("%q: %+v (hint bits %d), %v; want %+v (%d)", c.in, got, got.HintBits(), err, c.want, c.hintBits)
		}
	}
	for _, bad := range []string{"material:17", "material:0", "coherence:3", "coherence:32", "material:x", "random"} {
		if _, err := ParseReorder(bad); err == nil {
			t.Errorf("%q accepted", bad)
		} else if strings.HasPrefix(bad, "material:") && !strings.Contains(err.Error(), "1..16") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	// The zero value is the default scheme.
	if (Reorder{}).HintBits() != layout.MaxHintBits {
		t.Errorf("the zero Reorder reorders by %d bits", (Reorder{}).HintBits())
	}
}

// TestParseColor: R,G,B or one value, finite and not negative; NaN too is
// refused (it compares false with every bound).
func TestParseColor(t *testing.T) {
	if c, err := ParseColor("0.5"); err != nil || c != [3]float32{0.5, 0.5, 0.5} {
		t.Errorf("0.5: %v %v", c, err)
	}
	if c, err := ParseColor("1, 2,3"); err != nil || c != [3]float32{1, 2, 3} {
		t.Errorf("1, 2,3: %v %v", c, err)
	}
	for _, bad := range []string{"NaN", "1,NaN,1", "-1", "inf", "1e31", "1,2", "x"} {
		if _, err := ParseColor(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
