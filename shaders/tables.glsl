// tables.glsl: the GPU's access to the albedo tables, which the kernel's
// lookups (render/kernel/lookup.go, translated) read through these
// functions; Go's twins are in render/kernel/tables.go. The includer
// defines ALBEDO_TABLE(i), the i-th vec2 of the uploaded buffer, which
// kernel.AlbedoTables lays out where render/layout says (SHEEN_TABLE_AT
// …): the specular table, the sheen's (in .x), the film's bins, the
// anisotropic table, the glass's (two pairs a cell) and the
// multiple-scattering table (in .x).
#ifndef TABLES_GLSL
#define TABLES_GLSL

void specularTableAt(int i, int j, out float a, out float s) {
    vec2 v = ALBEDO_TABLE(i * ALBEDO_TABLE_SIZE + j);
    a = v.x;
    s = v.y;
}

float sheenTableAt(int i, int j) { return ALBEDO_TABLE(SHEEN_TABLE_AT + i * ALBEDO_TABLE_SIZE + j).x; }

void iridBinAt(int i, int j, int k, out float w, out float wvh) {
    vec2 v = ALBEDO_TABLE(IRID_BINS_AT + (i * ALBEDO_TABLE_SIZE + j) * IRID_BINS + k);
    w = v.x;
    wvh = v.y;
}

void anisoTableAt(int cell, out float a, out float s) {
    vec2 v = ALBEDO_TABLE(ANISO_TABLE_AT + cell);
    a = v.x;
    s = v.y;
}

void glassTableAt(int cell, out float entering, out float leaving, out float reflected) {
    vec2 v = ALBEDO_TABLE(GLASS_TABLE_AT + 2 * cell);
    entering = v.x;
    leaving = v.y;
    reflected = ALBEDO_TABLE(GLASS_TABLE_AT + 2 * cell + 1).x;
}

float msTableAt(int cell) { return ALBEDO_TABLE(MS_TABLE_AT + cell).x; }

#endif // TABLES_GLSL
