// govec.glsl: Go's scene.Vec3 Dot and Normalize, rounded as Go rounds them
// (camera.glsl and intersect.glsl need them bit for bit).
#ifndef GO_VEC_GLSL
#define GO_VEC_GLSL
// dotGo is scene.Vec3.Dot: float32, summed left to right.
float dotGo(vec3 a, vec3 b) {
    precise float r = a.x * b.x + a.y * b.y + a.z * b.z;
    return r;
}
// normalizeGo is scene.Vec3.Normalize: the length is the float64 square root
// of the float32 dot product, rounded to float32; the zero vector stays
// zero; the vector is scaled by the float32 reciprocal of the length.
vec3 normalizeGo(vec3 v) {
    float l = float(sqrt(double(dotGo(v, v))));
    if (l == 0.0) {
        return vec3(0.0);
    }
    precise vec3 r = v * (1.0 / l);
    return r;
}
#endif // GO_VEC_GLSL
