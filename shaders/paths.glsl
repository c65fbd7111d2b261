// paths.glsl: a sample's path from the camera, and a pixel's sums of its
// samples into the accumulation buffer, shared by the raygen shader and the
// ray-query wavefront.
#ifndef PATHS_GLSL
#define PATHS_GLSL

// The pixel filter as the kernel's FilterSample reads it (kernel.Filter).
int filterCells() { return int(P.filterN); }
float filterRadius() { return P.filterRadius; }
float filterCDF(int i) { return P.filterCDF.v[i]; }

// newPath starts sample sampleIndex of pixel (x, y) of the launch (row y of
// its band: image row P.y0 + y) at the camera, through the pixel filter
// and the lens, as render/cpu's renderTile does.
Path newPath(uint x, uint y, uint sampleIndex) {
    y += P.y0;
    Path path;
    path.pixel = y * P.width + x; // the image's: its random streams
    path.sampleIndex = sampleIndex;
    path.bounce = 0u;
    path.throughput = vec3(1.0);
    path.radiance = vec3(0.0);
    path.albedo = vec3(0.0);
    path.normal = vec3(0.0);
    path.depth = 0.0;
    path.diffuse = vec3(0.0);
    path.specular = vec3(0.0);
    path.diffAlbedo = vec3(0.0);
    path.specAlbedo = vec3(0.0);
    path.split = vec3(0.0);
    path.prevPdf = 0.0;
    path.medium = -1;
    path.etaScale = 1.0;
    path.wavelength = 0.0;
    path.alive = 1u;
    path.rays = 0u;
    path.shadowRays = 0u;
    path.events = 0u;
    float jx = filterSample(pathRandom(path, DIM_PIXEL_X));
    float jy = filterSample(pathRandom(path, DIM_PIXEL_Y));
    vec3 o, d;
    precise float px = float(x) + 0.5;
    precise float py = float(y) + 0.5;
    px += jx;
    py += jy;
    cameraRay(P.camera, px, py, o, d);
    lensRay(P.camera, o, d, pathRandom(path, DIM_LENS_U), pathRandom(path, DIM_LENS_V), o, d);
    path.origin = o;
    path.dir = d;
    return path;
}

// A pixel's sums over its samples of this launch.
struct Sums {
    vec3 beauty, albedo, normal;
    float depth, lumSq, cost, pathLength, shadowRays;
    vec3 diffuse, specular, diffAlbedo, specAlbedo;
    float diffLumSq, specLumSq;
};

Sums noSums() {
    Sums s;
    s.beauty = vec3(0.0);
    s.albedo = vec3(0.0);
    s.normal = vec3(0.0);
    s.depth = 0.0;
    s.lumSq = 0.0;
    s.cost = 0.0;
    s.pathLength = 0.0;
    s.shadowRays = 0.0;
    s.diffuse = vec3(0.0);
    s.specular = vec3(0.0);
    s.diffAlbedo = vec3(0.0);
    s.specAlbedo = vec3(0.0);
    s.diffLumSq = 0.0;
    s.specLumSq = 0.0;
    return s;
}

float finiteOr0(float v) { return isnan(v) || isinf(v) ? 0.0 : v; }

vec3 finiteOr0(vec3 v) { return vec3(finiteOr0(v.x), finiteOr0(v.y), finiteOr0(v.z)); }

// lumSq is the squared luminance of a sample (0 for a bad one).
float lumSq(vec3 v) {
    float l = finiteOr0(luminance(v));
    return l * l;
}

void addSample(inout Sums s, Path path) {
    // One bad sample never poisons a pixel.
    s.beauty += finiteOr0(path.radiance);
    s.diffuse += finiteOr0(path.diffuse);
    s.specular += finiteOr0(path.specular);
    s.diffAlbedo += path.diffAlbedo;
    s.specAlbedo += path.specAlbedo;
    s.diffLumSq += lumSq(path.diffuse);
    s.specLumSq += lumSq(path.specular);
    s.albedo += path.albedo;
    s.normal += path.normal;
    s.depth += path.depth;
    s.lumSq += lumSq(path.radiance);
    s.cost += float(path.rays);
    s.pathLength += float(path.bounce);
    s.shadowRays += float(path.shadowRays);
}

// addFilm adds v to float i of a film layer (FILM_*), where the render's
// buffer holds the layer (Params.filmAt).
void addFilm(uint layer, uint i, float v) {
    uint at = P.filmAt[layer];
    if (at != FILM_NONE) {
        P.film.v[at + i] += v;
    }
}

// writeFilm adds a pixel's sums to the accumulation buffer (one invocation
// owns each pixel: no atomics).
void writeFilm(uint pixel, Sums s) {
    for (uint c = 0u; c < 3u; c++) {
        addFilm(FILM_BEAUTY, 3u * pixel + c, s.beauty[c]);
        addFilm(FILM_ALBEDO, 3u * pixel + c, s.albedo[c]);
        addFilm(FILM_NORMAL, 3u * pixel + c, s.normal[c]);
        addFilm(FILM_DIFFUSE, 3u * pixel + c, s.diffuse[c]);
        addFilm(FILM_SPECULAR, 3u * pixel + c, s.specular[c]);
        addFilm(FILM_DIFFUSE_ALBEDO, 3u * pixel + c, s.diffAlbedo[c]);
        addFilm(FILM_SPECULAR_ALBEDO, 3u * pixel + c, s.specAlbedo[c]);
    }
    addFilm(FILM_DEPTH, pixel, s.depth);
    addFilm(FILM_LUM_SQ, pixel, s.lumSq);
    addFilm(FILM_COST, pixel, s.cost);
    addFilm(FILM_PATH_LENGTH, pixel, s.pathLength);
    addFilm(FILM_SHADOW_RAYS, pixel, s.shadowRays);
    addFilm(FILM_DIFFUSE_LUM_SQ, pixel, s.diffLumSq);
    addFilm(FILM_SPECULAR_LUM_SQ, pixel, s.specLumSq);
}

#endif
