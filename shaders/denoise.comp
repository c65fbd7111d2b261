#version 460
// The denoiser's regression filter (denoise/regression.go) as a compute
// shader, one invocation per pixel: around it, the illumination is fitted
// as a linear function of screen position, normal and depth over a window,
// weighted by those features and by how far a neighbour's luminance lies
// outside the noise; the fit's intercept is the result. The host prepares
// the inputs (demodulation, variance, firefly clamp, depth gradient) with
// package denoise, so both filters read the same numbers.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "generated/layout.glsl"

layout(buffer_reference, scalar, buffer_reference_align = 8) buffer DenoiseParamsBuf { DenoiseParams p; };
layout(push_constant, scalar) uniform Push { DenoiseParamsBuf params; } push;
#define D (push.params.p)
#define F (D.denoiseFilter)

layout(local_size_x = 8, local_size_y = 8) in;

float lum(vec3 c) { return LUM_R * c.x + LUM_G * c.y + LUM_B * c.z; }

void main() {
    int px = int(gl_GlobalInvocationID.x), py = int(gl_GlobalInvocationID.y);
    int w = int(F.width), h = int(F.height), radius = F.radius;
    if (px >= w || py >= h) {
        return;
    }
    const int K = 7; // 1, dx, dy, dnx, dny, dnz, dz
    double a[K][K];
    double b[K][3];
    for (int i = 0; i < K; i++) {
        for (int j = 0; j < K; j++) {
            a[i][j] = 0.0lf;
        }
        b[i][0] = 0.0lf;
        b[i][1] = 0.0lf;
        b[i][2] = 0.0lf;
    }
    int p = py * w + px;
    vec3 lightP = D.light.v[p];
    float lp = lum(lightP);
    float sd = D.sd.v[p];
    vec3 np = D.normal.v[p];
    vec3 ap = D.albedo.v[p];
    float zp = D.depth.v[p], gz = D.gradZ.v[p];
    for (int qy = max(py - radius, 0); qy <= min(py + radius, h - 1); qy++) {
        for (int qx = max(px - radius, 0); qx <= min(px + radius, w - 1); qx++) {
            int q = qy * w + qx;
            float dx = float(qx - px) / float(radius), dy = float(qy - py) / float(radius);
            vec3 dn = D.normal.v[q] - np;
            float dz = (D.depth.v[q] - zp) / (gz * float(radius) + 1e-3);
            vec3 dA = ap - D.albedo.v[q];
            float da = dA.x * dA.x + dA.y * dA.y + dA.z * dA.z;
            vec3 lq = D.light.v[q];
            float dl = abs(lum(lq) - lp);
            float e = -(dn.x * dn.x + dn.y * dn.y + dn.z * dn.z) * F.sigmaNorm - dz * dz / (F.sigmaDepth * F.sigmaDepth) -
                      da / (F.sigmaAlb * F.sigmaAlb) - dl / (F.sigmaLum * sd + 1e-6);
            double wt = double(exp(e));
            if (wt < 1e-6lf) {
                continue;
            }
            double x[K] = double[K](1.0lf, double(dx), double(dy), double(dn.x), double(dn.y), double(dn.z), double(dz));
            for (int i = 0; i < K; i++) {
                for (int j = 0; j <= i; j++) {
                    a[i][j] += wt * x[i] * x[j];
                }
                b[i][0] += wt * x[i] * double(lq.x);
                b[i][1] += wt * x[i] * double(lq.y);
                b[i][2] += wt * x[i] * double(lq.z);
            }
        }
    }
    // Ridge regularisation keeps the slopes tame; the intercept is free.
    for (int i = 1; i < K; i++) {
        a[i][i] += 1e-3lf * a[0][0];
    }
    // Cholesky: A = L·Lᵀ, then the intercepts by substitution.
    double l[K][K];
    bool ok = true;
    for (int i = 0; i < K && ok; i++) {
        for (int j = 0; j <= i; j++) {
            double s = a[i][j];
            for (int m = 0; m < j; m++) {
                s -= l[i][m] * l[j][m];
            }
            if (i == j) {
                if (s <= 0.0lf) {
                    ok = false;
                    break;
                }
                l[i][i] = sqrt(s);
            } else {
                l[i][j] = s / l[j][j];
            }
        }
    }
    vec3 outv = lightP;
    if (ok) {
        for (int c = 0; c < 3; c++) {
            double y[K], xs[K];
            for (int i = 0; i < K; i++) {
                double s = b[i][c];
                for (int m = 0; m < i; m++) {
                    s -= l[i][m] * y[m];
                }
                y[i] = s / l[i][i];
            }
            for (int i = K - 1; i >= 0; i--) {
                double s = y[i];
                for (int m = i + 1; m < K; m++) {
                    s -= l[m][i] * xs[m];
                }
                xs[i] = s / l[i][i];
            }
            if (!isnan(xs[0])) {
                outv[c] = float(max(xs[0], 0.0lf));
            }
        }
    }
    D.result.v[p] = outv;
}
