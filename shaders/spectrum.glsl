// spectrum.glsl: render/spectrum.go on the GPU: the one wavelength a
// dispersive path carries, its RGB weights, and KHR_materials_dispersion's
// index at it. The constants come from render/layout, in the generated
// header.
#ifndef SPECTRUM_GLSL
#define SPECTRUM_GLSL

float sampleWavelength(float u) {
    return WAVELENGTH_MIN + (WAVELENGTH_MAX - WAVELENGTH_MIN) * u;
}

float spectrumResponse(float lambda, float mu, float sigma, float norm) {
    float x = (lambda - mu) / sigma;
    return exp(-0.5 * x * x) / norm;
}

vec3 wavelengthWeights(float lambda) {
    return vec3(spectrumResponse(lambda, SPECTRUM_RED_MU, SPECTRUM_RED_SIGMA, SPECTRUM_RED_NORM),
                spectrumResponse(lambda, SPECTRUM_GREEN_MU, SPECTRUM_GREEN_SIGMA, SPECTRUM_GREEN_NORM),
                spectrumResponse(lambda, SPECTRUM_BLUE_MU, SPECTRUM_BLUE_SIGMA, SPECTRUM_BLUE_NORM));
}

// dispersionIOR is Cauchy's index fitted to ior at the d line and the Abbe
// number 20/dispersion (render.DispersionIOR).
float dispersionIOR(float ior, float dispersion, float lambda) {
    if (dispersion <= 0.0) {
        return ior;
    }
    float abbe = 20.0 / dispersion;
    float f = LINE_F / 1000.0, c = LINE_C / 1000.0, d = LINE_D / 1000.0;
    float invF = 1.0 / (f * f), invC = 1.0 / (c * c), invD = 1.0 / (d * d);
    float b = (ior - 1.0) / (abbe * (invF - invC));
    float l = lambda / 1000.0;
    return max(ior + b * (1.0 / (l * l) - invD), 1.0);
}

#endif // SPECTRUM_GLSL
