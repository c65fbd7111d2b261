package scene

import (
	"strings"
	"testing"
)

// variantsDoc is validDoc with three materials, a primitive whose own
// material is the first and whose KHR_materials_variants mappings give the
// second to "red" and "crimson" and the third to "blue".
func variantsDoc() map[string]any {
	doc := validDoc()
	mat := func(name string, r, g, b float64) map[string]any {
		return map[string]any{"name": name, "pbrMetallicRoughness": map[string]any{"baseColorFactor": []any{r, g, b, 1}}}
	}
	doc["materials"] = []any{mat("white", 1, 1, 1), mat("red", 1, 0, 0), mat("blue", 0, 0, 1)}
	doc["extensionsUsed"] = []any{"KHR_materials_variants"}
	doc["extensions"] = map[string]any{"KHR_materials_variants": map[string]any{
		"variants": []any{map[string]any{"name": "red"}, map[string]any{"name": "blue"}, map[string]any{"name": "crimson"}}}}
	prim := at(doc, "meshes", 0, "primitives", 0)
	prim["material"] = 0
	prim["extensions"] = map[string]any{"KHR_materials_variants": map[string]any{"mappings": []any{
		map[string]any{"material": 1, "variants": []any{0, 2}},
		map[string]any{"material": 2, "variants": []any{1}},
	}}}
	return doc
}

// TestMaterialVariants: a file's variants are listed; WithVariant gives the
// primitives their mapped materials, none gives their own; a name the file
// does not have, or a file without variants, is one clear error.
func TestMaterialVariants(t *testing.T) {
	data := encode(t, variantsDoc())
	for _, c := range []struct{ variant, want string }{{"", "white"}, {"red", "red"}, {"blue", "blue"}, {"crimson", "red"}} {
		sc, err := Decode(data, "v.gltf", nil, WithVariant(c.variant))
		if err != nil {
			t.Fatalf("%q: %v", c.variant, err)
		}
		if got := sc.Materials[sc.Instances[0].Material].Name; got != c.want {
			t.Errorf("variant %q: material %q, want %q", c.variant, got, c.want)
		}
		if strings.Join(sc.Variants, ",") != "red,blue,crimson" || sc.Variant != c.variant || len(sc.Warnings) > 0 {
			t.Errorf("variants %q, chosen %q, warnings %q", sc.Variants, sc.Variant, sc.Warnings)
		}
	}
	if _, err := Decode(data, "v.gltf", nil, WithVariant("green")); err == nil || !strings.Contains(err.Error(), `variant "green" is not one of the file's: ["red" "blue" "crimson"]`) || !strings.Contains(err.Error(), "v.gltf") {
		t.Errorf("an unknown variant: %v", err)
	}
	if _, err := Decode(encode(t, validDoc()), "plain.gltf", nil, WithVariant("red")); err == nil || !strings.Contains(err.Error(), "no material variants") {
		t.Errorf("a variant of a file without any: %v", err)
	}
	bad := variantsDoc()
	at(bad, "meshes", 0, "primitives", 0, "extensions", "KHR_materials_variants")["mappings"] = []any{map[string]any{"material": 7, "variants": []any{0}}}
	if _, err := Decode(encode(t, bad), "bad.gltf", nil, WithVariant("red")); err == nil || !strings.Contains(err.Error(), "material 7 does not exist") {
		t.Errorf("a mapping to a missing material: %v", err)
	}
}
