// govec.glsl: Go's scene.Vec3 Dot and Normalize, in Go's order of
// operations (the sums left to right, the reciprocal then the products).
#ifndef GO_VEC_GLSL
#define GO_VEC_GLSL
// dotGo is scene.Vec3.Dot: float32, summed left to right.
float dotGo(vec3 a, vec3 b) {
    precise float r = a.x * b.x + a.y * b.y + a.z * b.z;
    return r;
}
// normalizeGo is scene.Vec3.Normalize: the zero vector stays zero; the
// vector is scaled by the reciprocal of its length. (Go's length is the
// correctly rounded square root; GLSL's sqrt may be a few ulps off.)
vec3 normalizeGo(vec3 v) {
    float l = sqrt(dotGo(v, v));
    if (l == 0.0) {
        return vec3(0.0);
    }
    precise vec3 r = v * (1.0 / l);
    return r;
}
#endif // GO_VEC_GLSL
