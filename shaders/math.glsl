// math.glsl: the constants and the luminance every stage and the probe
// shader use.
#ifndef MATH_GLSL
#define MATH_GLSL

const float PI = 3.14159265358979323846;
const float INF = 1.0 / 0.0;

float luminance(vec3 c) { return 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z; }

#endif // MATH_GLSL
