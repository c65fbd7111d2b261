package vulkan

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"sertrace/render"
	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// Backend renders on a Vulkan device: through a ray-tracing pipeline (path
// ser: hit objects and reorderThreadNV; rt: traceRayEXT), or through a
// wavefront that sorts its hits (rt-sorted: on the ray-tracing pipeline;
// rayquery: compute shaders with ray queries).
type Backend struct {
	Path       string // one of PathNames; "" picks the best the device has
	Device     int    // index in Devices(); −1 picks the first that can
	Validation bool   // the Khronos validation layer, with every message an error
}

// Name is "vulkan".
func (Backend) Name() string { return "vulkan" }

// loseDeviceAfter, when positive, makes every launch after that many fail
// as a lost device would (tests set it).
var loseDeviceAfter int

// bandRows is the rows of the render's launches: its bands' where it is in
// bands (render.RenderBands), else the image's.
func bandRows(opts render.Options) int {
	if opts.BandRows > 0 {
		return min(opts.BandRows, opts.Height)
	}
	return opts.Height
}

// maxLaunchPaths caps the samples of a pass of the ray-tracing pipeline
// at about four million paths, a few tens of milliseconds on a GPU, so
// that a desktop GPU's watchdog never fires (their slots are 772 MB, which
// planLaunches fits to the device's memory in rows); waveLaunchPaths the
// samples of a pass of the wavefronts at about a million paths (231 MB of
// buffers), where the image has fewer pixels (a pass is at least a
// sample of every pixel).
const (
	maxLaunchPaths  = 1 << 22
	waveLaunchPaths = 1 << 20
)

// Prepare opens the device and path (b.Path, or the best the device has)
// and makes the scene's buffers, acceleration structures and pipeline.
func (b Backend) Prepare(ctx context.Context, sc *scene.Scene, opts render.Options) (render.Session, error) {
	if p := b.Path; p != "" && !slices.Contains(PathNames, p) {
		return nil, fmt.Errorf("unknown path %q (%s)", p, strings.Join(PathNames, ", "))
	}
	key := poolKey{index: b.Device, validation: b.Validation}
	d, err := takeDevice(key, b.Path)
	if err != nil {
		return nil, err
	}
	path := b.Path
	if path == "" {
		path = d.info.Best()
	}
	r, err := newRenderer(d, sc, opts, path)
	if err != nil {
		var room *noRoomError
		if errors.As(err, &room) {
			returnDevice(key, d) // sound, its pipelines and scene kept for the next job
		} else {
			d.destroy()
		}
		return nil, err
	}
	return &session{b: b, d: d, r: r, key: key}, nil
}

// Reorders says whether a path reorders by a scheme: ser's threads by
// reorderThreadNV, rt-sorted's and rayquery's hits by the counting sort of
// the same keys; rt traces without reordering whatever the scheme (the
// baseline the others are measured against).
func Reorders(path string, r render.Reorder) bool {
	return path != PathRT && r.HintBits() >= 0
}

// session is a scene prepared on a device. Its passes are launches, whose
// sums are read back and added to the film in float64, so a cancellation
// or a lost device keeps every completed launch. Closed, it gives its
// device back to the process's pool (kept.go), unless a launch failed.
type session struct {
	b      Backend
	d      *device
	r      *renderer
	key    poolKey
	failed bool
	whole  *render.Film // a slice's pass in launches, until it is done
	gpu    time.Duration
	stages stageTimes
}

// MaxPass caps a pass at about four million paths (a million on the
// wavefronts) and 256 samples per pixel.
func (s *session) MaxPass() int { return s.r.maxPass }

// passSamples is MaxPass of a render of opts, on a wavefront path or not.
// It counts the whole image's pixels, band or not, whatever the device's
// memory: a pixel's launches then take the same samples in bands and in
// launches of any rows as in one go, and their float32 sums are the same.
func passSamples(opts render.Options, wave bool) int {
	paths := maxLaunchPaths
	if wave {
		paths = waveLaunchPaths
	}
	return max(1, min(256, paths/(opts.Width*opts.Height)))
}

func (s *session) Pass(ctx context.Context, first, spp int, film *render.Film, progress func(float64)) error {
	r := s.r
	if film.Width != r.opts.Width || film.Height > bandRows(r.opts) || film.Y0 < 0 || film.Y0+film.Height > r.opts.Height {
		return fmt.Errorf("render failed: internal error: a film of %dx%d from row %d in a session for %dx%d in bands of %d rows",
			film.Width, film.Height, film.Y0, r.opts.Width, r.opts.Height, bandRows(r.opts))
	}
	for l, info := range render.FilmLayers {
		if info.GPU >= 0 && film.Has(render.Layer(l)) && r.filmAt[info.GPU] == layout.FilmNone {
			return fmt.Errorf("render failed: internal error: the film holds the %s layer, which the session was not prepared for (Options.Layers)", info.Name)
		}
	}
	if len(film.Groups) > 0 && len(film.Groups) != r.groups {
		return fmt.Errorf("render failed: internal error: the film holds %d light groups, the session was prepared for %d (Options.Layers, LightGroups)", len(film.Groups), r.groups)
	}
	if film.Coverage != nil && r.ids == nil {
		return fmt.Errorf("render failed: internal error: the film counts Cryptomatte's coverage, which the session was not prepared for (Options.Layers)")
	}
	if r.active == nil && film.Active() < film.Width*film.Height {
		return fmt.Errorf("render failed: internal error: the film has pixels that stopped sampling, which the session was not prepared for (Options.Adaptive)")
	}
	// Launches of the film's rows, as many as the buffers hold (the
	// paths' slots are the pixels sampled times the samples); the
	// shaders add Y0 to the launch's row.
	if spp > r.maxPass {
		return fmt.Errorf("render failed: internal error: a pass of %d samples a pixel in a session for passes of %d", spp, r.maxPass)
	}
	rows := min(r.plan.rows, r.plan.paths/(film.Width*spp))
	// A pass of several launches cut short keeps the launches done (a cut
	// pass), but a slice's passes are whole (Options.WholePasses): its
	// launches add to a film of their own, added to the slice's when the
	// pass is done.
	dst := film
	if r.opts.WholePasses && rows < film.Height {
		if s.whole == nil || s.whole.Height != film.Height {
			s.whole = film.Like(film.Width, film.Height)
		} else {
			s.whole.Reset()
		}
		dst = s.whole
	}
	for y, h := 0, 0; y < film.Height; y += h {
		if y > 0 && ctx.Err() != nil {
			return ctx.Err() // the launches before it are kept: a cut pass, or none
		}
		if h = r.nextLaunch(film, y, rows, spp); r.sampled == 0 {
			continue // a cut pass's pixels it holds already, or stopped ones
		}
		var dt time.Duration
		var err error
		r.launches++
		if r.wave != nil {
			var st stageTimes
			dt, st, err = r.wave.launch(r, first, spp)
			s.stages.trace += st.trace
			s.stages.sort += st.sort
			s.stages.shade += st.shade
		} else {
			dt, err = r.launch(first, spp)
		}
		if loseDeviceAfter > 0 && r.launches > loseDeviceAfter {
			err = &vkError{what: "vkQueueSubmit (injected by a test)", code: int32(vk.ErrorDeviceLost)}
		}
		if err != nil {
			s.failed = true
			return fmt.Errorf("rendering on %s: %w", s.d.info.Name, err)
		}
		s.gpu += dt
		r.addTo(dst, y)
		if progress != nil {
			progress(float64(y+h) / float64(film.Height))
		}
	}
	if dst != film {
		if err := film.Add(dst); err != nil {
			return fmt.Errorf("render failed: internal error: %w", err)
		}
		film.CostUnit = dst.CostUnit
	}
	return nil
}

func (s *session) Finish(stats *render.Stats) error {
	stats.Backend, stats.Path, stats.Device, stats.DeviceIndex = "vulkan", s.r.path, s.d.info.Name, s.d.info.Index
	stats.DeviceMemory = s.d.memoryBytes()
	stats.GPUSeconds = s.gpu.Seconds()
	if s.r.wave != nil {
		stats.Stages = map[string]float64{"trace": s.stages.trace.Seconds(), "sort": s.stages.sort.Seconds(), "shade": s.stages.shade.Seconds()}
	}
	stats.Rays = s.r.rays
	stats.Launches, stats.LaunchRows = s.r.launches, s.r.plan.rows
	stats.LaunchThreads, stats.SampleBatch = s.r.threads, s.r.batch
	if s.b.Validation {
		return ValidationErrors()
	}
	return nil
}

func (s *session) Close() {
	s.r.destroy()
	if s.failed {
		s.d.destroy() // a lost device is not used again
		return
	}
	returnDevice(s.key, s.d)
}

// renderer is one render's device state: scene buffers, acceleration
// structures, pipeline, parameter block and accumulation buffer.
type renderer struct {
	d        *device
	opts     render.Options
	p        *packed
	bufs     *sceneBuffers
	acc      *accel
	pipe     *pipeline
	params   layout.Params
	pbuf     *buffer
	film     *buffer
	times    vk.QueryPool
	wave     *wavefront
	rays     render.RayCounts
	tick     float64 // nanoseconds per timestamp tick
	launches int
	plan     launchPlan // the rows and paths a launch holds at most
	maxPass  int        // MaxPass
	mark     memMark    // the device's allocations before the render's own
	marked   bool
	path     string
	clock    bool // the raygen times pixels with the shader clock
	// kernels resolve the launch's paths into the film (and, on the
	// wavefronts, run their stages); batchAsked is SERTRACE_RT_BATCH
	// (rtBatchAsked); batch and threads the largest sample batch and
	// invocations of a launch so far (Stats).
	kernels        *waveKernels
	batchAsked     int
	batch, threads int
	// filmAt is where each layer the film buffer holds starts in it
	// (Params.FilmAt, render.GPUFilmLayout), filmFloats its floats per pixel.
	filmAt     [layout.FilmLayers]uint32
	filmFloats int
	// groups is the light groups the film buffer holds after the other
	// layers, from float groupsAt (filmLayout; 0: none); ids, where the
	// render counts Cryptomatte's coverage, each path's first instance
	// + 1 (Params.IDs), read back after each launch.
	groups   int
	groupsAt uint32
	ids      *buffer
	// active, in a render that samples adaptively, lists the launch's
	// pixels still sampling for the shaders (Params.ActivePixels); spans
	// are the launch's sampled pixels, sampled of them (nextLaunch).
	active  *buffer
	spans   []span
	sampled int
	runs    []render.PassRun // the spans as the film adds them (addTo)
}

// span is a run of a launch's sampled pixels: n pixels from pixel (an
// index in the launch's rows), the first of them the launch's k-th
// sampled pixel, whose IDs and sums are the buffers' k-th.
type span struct{ pixel, k, n int }

// newRenderer makes what a render needs on the device: the path's
// pipelines and the scene's buffers and acceleration structures, each
// kept from an earlier render of the device where it has them, then the
// render's own buffers. On an error it destroys what it made.
func newRenderer(d *device, sc *scene.Scene, opts render.Options, path string) (_ *renderer, err error) {
	r := &renderer{d: d, opts: opts}
	defer func() {
		if err != nil {
			r.destroy()
		}
	}()
	r.path = path
	// The clock variants time each pixel with the shader clock, for the
	// GPU cost heatmap; the wavefronts have none.
	r.clock = opts.GPUCost && (path == PathSER || path == PathRT) && d.info.ShaderClock
	if !isWavefront(path) {
		if r.batchAsked, err = rtBatchAsked(); err != nil {
			return nil, err
		}
	}
	pipe, kernels, err := d.makePipelines(path, r.clock)
	if err != nil {
		return nil, err
	}
	r.kernels = kernels
	ks, err := d.sceneFor(sc, render.EnvironmentPower(opts.EnvMap, scene.V3(opts.EnvColor)), opts.LightSampler, opts.LightGroups)
	if err != nil {
		return nil, err
	}
	r.p, r.bufs, r.acc, r.pipe = ks.p, ks.bufs, ks.acc, pipe
	r.mark, r.marked = d.mark(), true
	held := opts.Layers
	if held == 0 {
		held = render.AllLayers
	}
	groups, ids := renderExtras(opts)
	r.groups = groups
	_, _, floats := filmLayout(held, r.clock, 1, groups)
	wave := isWavefront(path)
	r.maxPass = passSamples(opts, wave)
	if r.plan, err = d.planLaunches(opts, floats, wave, r.maxPass); err != nil {
		return nil, err
	}
	n := opts.Width * r.plan.rows // a launch's pixels at most
	if wave {
		if r.wave, err = d.newWavefront(r, kernels, r.plan.paths); err != nil {
			return nil, err
		}
		if Reorders(path, opts.Reorder) {
			r.params.SortOn = 1
		}
	} else if err = d.newSlots(r, r.plan.paths, false); err != nil {
		return nil, err
	}
	r.filmAt, r.groupsAt, r.filmFloats = filmLayout(held, r.clock, n, groups)
	if r.film, err = d.newBuffer(uint64(4*r.filmFloats*n), 0, memReadback, false); err != nil {
		return nil, err
	}
	if ids {
		if r.ids, err = d.newBuffer(uint64(idBytes*n*r.maxPass), 0, memReadback, false); err != nil {
			return nil, err
		}
	}
	if opts.Adaptive.On() {
		if r.active, err = d.newBuffer(uint64(activeBytes*n), 0, memUpload, false); err != nil {
			return nil, err
		}
	}
	if r.pbuf, err = d.newBuffer(uint64(unsafe.Sizeof(layout.Params{})), 0, memUpload, false); err != nil {
		return nil, err
	}
	if r.times, err = d.newTimestampPool(2); err != nil {
		return nil, err
	}
	var props vk.PhysicalDeviceProperties
	vk.GetPhysicalDeviceProperties(d.info.handle, &props)
	props.Deref()
	props.Limits.Deref()
	r.tick = float64(props.Limits.TimestampPeriod)
	if err = r.setParams(sc); err != nil {
		return nil, err
	}
	return r, nil
}

// setParams fills the parameter block: buffer addresses and settings.
func (r *renderer) setParams(sc *scene.Scene) error {
	d, opts, b := r.d, r.opts, r.bufs
	p := &r.params
	if r.acc != nil { // the scene probe has none
		p.TLAS = r.acc.tlasAddr
	}
	p.Instances, p.Materials, p.Meshes = b.instances.addr, b.materials.addr, b.meshes.addr
	p.SphereSets, p.CurveSets, p.Textures = b.sphereSets.addr, b.curveSets.addr, b.textures.addr
	p.Positions, p.Normals, p.TexCoords, p.Colors, p.Tangents = b.positions.addr, b.normals.addr, b.texCoords.addr, b.colors.addr, b.tangents.addr
	p.Indices, p.Points, p.Radii, p.Segments, p.Texels = b.indices.addr, b.points.addr, b.radii.addr, b.segments.addr, b.texels.addr
	p.Lights, p.LightColumns, p.LightPdf, p.LightNodes, p.Punctual = b.lights.addr, b.lightColumns.addr, b.lightPdf.addr, b.lightNodes.addr, b.punctual.addr
	p.LightCount, p.ColumnCount, p.NodeCount = uint32(len(r.p.lights.Entries)), uint32(len(r.p.lights.Columns)), uint32(len(r.p.lights.Tree))
	p.EnvLight = r.p.lights.EnvIndex

	sheen := slices.ContainsFunc(sc.Materials, func(m scene.Material) bool { return m.SheenColor != (scene.Vec3{}) })
	irid := slices.ContainsFunc(sc.Materials, func(m scene.Material) bool { return m.Iridescence > 0 })
	aniso := slices.ContainsFunc(sc.Materials, func(m scene.Material) bool { return m.AnisotropyStrength > 0 })
	glass := slices.ContainsFunc(sc.Materials, func(m scene.Material) bool { return m.Transmission > 0 })
	table := kernel.AlbedoTables(sheen, irid, aniso, glass)
	albedo, err := d.upload(unsafe.Slice((*byte)(unsafe.Pointer(&table[0])), 8*len(table)), 0, false)
	if err != nil {
		return err
	}
	p.AlbedoTable = albedo.addr
	var srgb [256]float32
	for i := range srgb {
		srgb[i] = render.DecodeSRGB(uint8(i))
	}
	sb, err := d.upload(bytesOf(srgb[:]), 0, false)
	if err != nil {
		return err
	}
	p.SRGBTable = sb.addr

	filter := opts.Filter
	if filter == nil {
		filter, _ = render.NewPixelFilter("box")
	}
	cdf := filter.CDF()
	fb, err := d.upload(bytesOf(append([]float32{0}, cdf...)[1:]), 0, false)
	if err != nil {
		return err
	}
	p.FilterCDF, p.FilterRadius, p.FilterN = fb.addr, filter.FilterRadius(), uint32(filter.FilterCells())

	p.EnvColor = scene.V3(opts.EnvColor)
	if e := opts.EnvMap; e != nil {
		marginal, conditional, total := e.Tables()
		var err1, err2, err3 error
		var px, mb, cb *buffer
		px, err1 = d.upload(bytesOf(e.Pixels), 0, false)
		mb, err2 = d.upload(bytesOf(marginal), 0, false)
		cb, err3 = d.upload(bytesOf(conditional), 0, false)
		if err := errors.Join(err1, err2, err3); err != nil {
			return err
		}
		p.EnvMap, p.EnvPixels, p.EnvMarginal, p.EnvConditional = 1, px.addr, mb.addr, cb.addr
		p.EnvWidth, p.EnvHeight, p.EnvRotation, p.EnvIntensity, p.EnvTotal = uint32(e.Width), uint32(e.Height), e.Rotation, e.Intensity, total
	}

	cam := render.NewCameraRays(sc.Cameras[opts.Camera], opts.Width, opts.Height)
	p.Camera = cam.Params()
	p.Forward = cam.Forward()
	p.Width, p.Height = uint32(opts.Width), uint32(opts.Height)
	p.MaxDepth, p.Seed = uint32(opts.MaxDepth), opts.Seed
	p.ReorderBits, p.HintFlags = opts.Reorder.Hint()
	if r.film != nil {
		p.Film = r.film.addr
	}
	p.FilmAt = r.filmAt
	p.LightGroups, p.GroupsAt, p.EnvLightGroup = uint32(r.groups), r.groupsAt, opts.LightGroups.EnvGroup()
	if r.ids != nil {
		p.IDs, p.IDsOn = r.ids.addr, 1
	}
	if r.active != nil {
		p.ActivePixels = r.active.addr
	}
	return nil
}

// nextLaunch sets the launch of the film's rows from y (Params.Height and
// Y0) and the pixels it samples (spans, sampled): up to rows rows and all
// their pixels, but those a cut pass holds already; or, where pixels have
// stopped (adaptive sampling), the rows' pixels still sampling that do
// not hold the pass already, listed for the shaders (Params.ActivePixels,
// ActiveCount). Every path traces the listed pixels alone, their sums one
// after another in the buffers: a launch takes as many rows as its
// pixels still sampling fill the buffers with (the read-back buffer's
// pixels, the paths' slots at spp samples). It returns the launch's rows.
func (r *renderer) nextLaunch(film *render.Film, y, rows, spp int) int {
	w := film.Width
	r.spans, r.sampled, r.params.ActiveCount = r.spans[:0], 0, 0
	if film.StoppedAt == nil || r.active == nil { // (a samples AOV's counts, none stopped)
		h := min(rows, film.Height-y)
		r.params.Height, r.params.Y0 = uint32(h), uint32(film.Y0+y)
		if !film.RowsAhead(y, y+h) {
			r.spans, r.sampled = append(r.spans, span{n: w * h}), w*h
		}
		return h
	}
	capacity := w * r.plan.rows // the buffers' pixels
	list := unsafe.Slice((*uint32)(unsafe.Pointer(&r.active.data[0])), capacity)
	limit, fit := film.Height-y, min(capacity, r.plan.paths/max(spp, 1)) // rows while the pixels fit
	h := 0
	for ; h < limit; h++ {
		px0 := (y + h) * w
		row := 0
		for x := range w {
			if !film.Stopped(px0+x) && !film.IsAhead(px0+x) {
				row++
			}
		}
		if r.sampled+row > fit && h > 0 { // (a row always fits: launchPlan)
			break
		}
		for x := range w {
			if px := px0 + x; !film.Stopped(px) && !film.IsAhead(px) {
				pixel := h*w + x
				if k := len(r.spans) - 1; k >= 0 && r.spans[k].pixel+r.spans[k].n == pixel {
					r.spans[k].n++
				} else {
					r.spans = append(r.spans, span{pixel: pixel, k: r.sampled, n: 1})
				}
				list[r.sampled] = uint32(pixel)
				r.sampled++
			}
		}
	}
	r.params.Height, r.params.Y0, r.params.ActiveCount = uint32(h), uint32(film.Y0+y), uint32(r.sampled)
	return h
}

// launch renders spp samples per pixel from sample first into the
// accumulation buffer, on the rt or ser path: the raygen traces the
// launch's paths into their slots, a sample batch an invocation
// (sampleBatch), and the resolve sums them into the film. It returns the
// GPU time the two took.
func (r *renderer) launch(first, spp int) (time.Duration, error) {
	d := r.d
	paths := r.sampled * spp
	if paths > r.plan.paths {
		return 0, fmt.Errorf("render failed: internal error: a launch of %d paths in buffers for %d", paths, r.plan.paths)
	}
	batch := sampleBatch(spp, r.sampled, r.batchAsked, r.clock)
	threads := paths / batch
	r.batch, r.threads = max(r.batch, batch), max(r.threads, threads)
	r.params.FirstSample, r.params.Samples, r.params.PathCount, r.params.SampleBatch = uint32(first), uint32(spp), uint32(paths), uint32(batch)
	copy(r.pbuf.data, unsafe.Slice((*byte)(unsafe.Pointer(&r.params)), unsafe.Sizeof(r.params)))
	if err := d.begin(); err != nil {
		return 0, err
	}
	vk.CmdFillBuffer(d.cmd, r.film.handle, 0, vk.DeviceSize(vk.WholeSize), 0)
	d.barrier(stageTransfer, accessTransferWrite, stageRayTracing|stageComputeShader, accessShaderRead|accessShaderWrite)
	d.resetQueryPool(r.times, 2)
	vk.CmdWriteTimestamp(d.cmd, vk.PipelineStageTopOfPipeBit, r.times, 0)
	// Rows of a row of pixels' invocations where there is no list (so
	// that a driver that tiles a launch in 2D tiles pixels near each
	// other: one invocation a pixel is the image's rows), else of as many
	// of the listed pixels'; those past the last batch return.
	width := uint32(min(threads, int(r.params.Width)*spp/batch, maxTraceWidth))
	height := (uint32(threads) + width - 1) / width
	addr := r.pbuf.addr
	r.pipe.trace(d, 0, unsafe.Pointer(&addr), 8, width, height, 0)
	d.barrier(stageRayTracing, accessShaderWrite, stageComputeShader, accessShaderRead|accessShaderWrite)
	r.kernels.dispatch(d, resolveModule, &wavefrontPush{params: addr}, r.sampled)
	vk.CmdWriteTimestamp(d.cmd, vk.PipelineStageBottomOfPipeBit, r.times, 1)
	d.barrier(stageRayTracing|stageComputeShader, accessShaderWrite, stageHost, accessHostRead)
	if err := d.submit(); err != nil {
		return 0, err
	}
	ts, err := d.queryResults(r.times, 2)
	if err != nil {
		return 0, err
	}
	return d.elapsed(ts[0], ts[1], r.tick), nil
}

// addTo adds the launch's sums to the film's rows from y, its sampled
// pixels' (spans), and marks them done (a pass cut after it keeps them).
func (r *renderer) addTo(film *render.Film, y int) {
	// The launch's sampled pixels, their sums one after another (the
	// resolve's); the buffer's layers are as far apart as the largest
	// launch's, its light groups' as the launch's sampled pixels.
	n := r.sampled
	px0 := y * film.Width
	sums := unsafe.Slice((*float32)(unsafe.Pointer(&r.film.data[0])), len(r.film.data)/4)
	r.runs = r.runs[:0]
	for _, s := range r.spans {
		r.runs = append(r.runs, render.PassRun{Pixel: px0 + s.pixel, From: s.k, N: s.n})
	}
	for l, info := range render.FilmLayers {
		g := info.GPU
		if render.Layer(l) == render.LayerCost && r.clock {
			g = layout.FilmClock // the shader clock's ticks stand for the rays
			film.CostUnit = "clock ticks"
		}
		if g >= 0 && film.Has(render.Layer(l)) {
			film.AddPassRuns(render.Layer(l), r.runs, sums[r.filmAt[g]:])
		}
	}
	if len(film.Groups) == r.groups {
		for g := range r.groups {
			film.AddGroupPassRuns(g, r.runs, sums[int(r.groupsAt)+3*g*n:])
		}
	}
	if film.Coverage != nil && r.ids != nil {
		r.countIDs(film, px0)
	}
	var cost, shadow float64
	for _, s := range r.spans {
		film.MarkAheadRange(px0+s.pixel, px0+s.pixel+s.n)
		c, sh := int(r.filmAt[layout.FilmCost])+s.k, int(r.filmAt[layout.FilmShadowRays])+s.k
		for i := range s.n {
			cost += float64(sums[c+i])
			shadow += float64(sums[sh+i])
		}
	}
	camera := int64(r.sampled) * int64(r.params.Samples)
	r.rays.Camera += camera
	r.rays.Shadow += int64(shadow)
	r.rays.Extension += int64(cost) - int64(shadow) - camera
}

// countIDs counts the launch's IDs into the film's Cryptomatte coverage:
// for each of its sampled pixels, from film pixel px0 on (but those a cut
// pass holds already), how many of its samples first saw each instance.
func (r *renderer) countIDs(film *render.Film, px0 int) {
	spp := int(r.params.Samples)
	ids := unsafe.Slice((*uint32)(unsafe.Pointer(&r.ids.data[0])), r.sampled*spp)
	var counts []uint64
	for _, s := range r.spans {
		for i := range s.n {
			if px, k := px0+s.pixel+i, s.k+i; !film.IsAhead(px) {
				counts = film.Coverage.AddSamples(px, ids[k*spp:(k+1)*spp], counts)
			}
		}
	}
}

// destroy frees the render's own buffers and queries; the pipelines and
// the scene's buffers and structures stay with the device.
func (r *renderer) destroy() {
	if r.times != nil {
		r.d.destroyQueryPool(r.times)
	}
	r.wave.destroy(r.d)
	if r.marked {
		vk.DeviceWaitIdle(r.d.handle)
		r.d.release(r.mark)
	}
}
