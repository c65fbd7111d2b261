// medium.glsl: Beer–Lambert absorption inside the path's medium
// (KHR_materials_volume's attenuation colour and distance), as
// render/cpu/integrator.go's transmittance: one medium at a time.
#ifndef MEDIUM_GLSL
#define MEDIUM_GLSL

vec3 transmittance(int medium, float t) {
    vec3 tr = vec3(1.0);
    if (medium < 0) {
        return tr;
    }
    Material m = P.materials.v[medium];
    if (isinf(m.attenuationDistance)) {
        return tr;
    }
    for (int c = 0; c < 3; c++) {
        float sigma = -log(max(m.attenuationColor[c], 1e-6)) / m.attenuationDistance;
        if (sigma > 0.0) {
            tr[c] = exp(-sigma * t);
        }
    }
    return tr;
}

#endif
