// math.glsl: the constants every stage and the probe shader use.
#ifndef MATH_GLSL
#define MATH_GLSL

const float PI = 3.14159265358979323846;
const float INF = 1.0 / 0.0;

#endif // MATH_GLSL
