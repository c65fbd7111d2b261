package layout

import "sertrace/scene"

// PackHair is a hair material's parameters as the shading reads them: each
// one given, with its bit in Set; nil (a default) leaves the bit clear.
func PackHair(h *scene.Hair) HairParams {
	var p HairParams
	set := func(v *float32, dst *float32, bit uint32) {
		if v != nil {
			*dst = *v
			p.Set |= bit
		}
	}
	set(h.Eumelanin, &p.Eumelanin, HairEumelanin)
	set(h.Pheomelanin, &p.Pheomelanin, HairPheomelanin)
	set(h.BetaM, &p.BetaM, HairBetaM)
	set(h.BetaN, &p.BetaN, HairBetaN)
	set(h.Alpha, &p.Alpha, HairAlpha)
	set(h.Eta, &p.Eta, HairEta)
	if h.Color != nil {
		p.Color = *h.Color
		p.Set |= HairColor
	}
	return p
}

// PackLight is a KHR_lights_punctual light as the shading reads it.
func PackLight(l *scene.Light) Light {
	return Light{Kind: uint32(l.Kind), Color: l.Color, Intensity: l.Intensity, Position: l.Position, Direction: l.Direction,
		Range: l.Range, InnerCone: l.InnerCone, OuterCone: l.OuterCone}
}
