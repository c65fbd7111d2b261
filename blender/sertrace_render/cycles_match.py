"""Cycles set to render as sertrace does, declared once for the add-on's
comparison (render_copy.py) and the Cycles anchor
(benchmarks/cycles/cycles.py): the same samples, bounces, seed and pixel
filter; no adaptive sampling, denoising, clamping, glossy blur or fast GI;
caustics on; transparency that costs no bounce (sertrace's alpha masks
let rays through in traversal)."""

# sertrace's pixel filters as Cycles' (Cycles doubles a Blackman-Harris
# width: 1.5 there is sertrace's 3 pixels).
PIXEL_FILTERS = {"box": ("BOX", 1.0), "gaussian": ("GAUSSIAN", 1.5), "blackman-harris": ("BLACKMAN_HARRIS", 1.5)}


def match_sertrace(scene, samples, bounces, seed, pixel_filter):
    """Make Cycles, on the CPU, scene's engine, set as sertrace renders
    with --spp samples, --max-depth bounces+1, --seed and --filter."""
    scene.render.engine = "CYCLES"
    c = scene.cycles
    c.device = "CPU"
    c.samples = samples
    c.use_adaptive_sampling = False
    c.use_denoising = False
    c.max_bounces = c.diffuse_bounces = c.glossy_bounces = c.transmission_bounces = bounces
    c.transparent_max_bounces = 1024
    c.volume_bounces = 0
    c.sample_clamp_direct = c.sample_clamp_indirect = 0.0
    c.blur_glossy = 0.0
    c.caustics_reflective = c.caustics_refractive = True
    c.pixel_filter_type, c.filter_width = PIXEL_FILTERS[pixel_filter]
    c.film_exposure = 1.0
    c.time_limit = 0.0
    c.use_layer_samples = "IGNORE"
    if hasattr(c, "use_fast_gi"):
        c.use_fast_gi = False
    c.seed = seed
    c.use_animated_seed = False
