// govec.glsl: Go's scene.Vec3 Dot, Cross, Length and Normalize, in Go's
// order of operations (the sums left to right, the reciprocal then the
// products), for the translated kernel and the hand-written stages.
#ifndef GO_VEC_GLSL
#define GO_VEC_GLSL
// dotGo is scene.Vec3.Dot: float32, summed left to right.
float dotGo(vec3 a, vec3 b) {
    precise float r = a.x * b.x + a.y * b.y + a.z * b.z;
    return r;
}
// crossGo is scene.Vec3.Cross (GLSL's cross may fuse its products).
vec3 crossGo(vec3 a, vec3 b) {
    precise vec3 r = vec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
    return r;
}
// lengthGo is scene.Vec3.Length.
float lengthGo(vec3 v) {
    return sqrt(dotGo(v, v));
}
// normalizeGo is scene.Vec3.Normalize: the zero vector stays zero; the
// vector is scaled by the reciprocal of its length. (Go's length is the
// correctly rounded square root; GLSL's sqrt may be a few ulps off.)
vec3 normalizeGo(vec3 v) {
    float l = lengthGo(v);
    if (l == 0.0) {
        return vec3(0.0);
    }
    precise vec3 r = v * (1.0 / l);
    return r;
}
// finiteGo is scene.Vec3.Finite: no component NaN or infinite.
bool finiteGo(vec3 v) {
    return !any(isnan(v)) && !any(isinf(v));
}
#endif // GO_VEC_GLSL
