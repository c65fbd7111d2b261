package vulkan

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"sertrace/atomicfile"
)

// Which path auto takes on a device: the fastest, measured, not the first
// the device offers. In order of trust:
//
//  1. the device's own calibration (sertrace devices --calibrate, or a
//     bench that timed two paths or more), a file beside the pipeline
//     cache that holds each path's GPU time per sample and the device and
//     driver it was measured on; a calibration of another driver is stale
//     and not used;
//  2. the project's own measurements on real hardware (measuredDevices),
//     by vendor, architecture and driver;
//  3. the first path the device offers, in PathNames' order.
//
// An explicit --path always wins. Nothing measures during a render: a
// calibration costs seconds to minutes of GPU time, which the user asks
// for.

// Where auto's choice comes from (AutoChoice.Source).
const (
	AutoCalibrated = "calibrated" // the device's own calibration
	AutoMeasured   = "measured"   // measuredDevices, the project's figures
	AutoOrder      = "order"      // the first path the device offers
)

// AutoChoice is the path auto takes on a device, and why.
type AutoChoice struct {
	Path   string `json:"path"`   // "" where the device runs no render path
	Source string `json:"source"` // AutoCalibrated, AutoMeasured, AutoOrder, or "" with no path
	Why    string `json:"why"`
	File   string `json:"calibration_file,omitempty"` // the device's calibration file, read or not
}

// calibrationFormat is the version of the calibration file's layout.
const calibrationFormat = 1

// Calibration is what a device measured of its paths: the median GPU time
// per sample per pixel of each, with what identifies the device and driver
// it holds for.
type Calibration struct {
	Format       int    `json:"format"`
	Device       string `json:"device"`
	VendorDevice string `json:"vendor_device"` // "10de:2335", the identity's vendor and device IDs
	Driver       string `json:"driver"`
	// DriverVersion and PipelineCacheUUID identify the driver's build;
	// another build makes the calibration stale.
	DriverVersion     uint32             `json:"driver_version"`
	PipelineCacheUUID string             `json:"pipeline_cache_uuid"`
	Date              string             `json:"date"` // RFC 3339, UTC
	Version           string             `json:"sertrace_version"`
	Measured          string             `json:"measured"`      // what was rendered: scene, size, samples, runs
	NsPerSample       map[string]float64 `json:"ns_per_sample"` // per path, the median GPU time per sample per pixel
}

// NewCalibration is an empty calibration of device d.
func NewCalibration(d Device, date, version, measured string) *Calibration {
	return &Calibration{Format: calibrationFormat, Device: d.Name, VendorDevice: d.VendorDevice, Driver: d.Driver,
		DriverVersion: d.id.driver, PipelineCacheUUID: fmt.Sprintf("%x", d.id.uuid), Date: date, Version: version,
		Measured: measured, NsPerSample: map[string]float64{}}
}

// stale says why c does not hold for device d, or "".
func (c *Calibration) stale(d *Device) string {
	switch {
	case c.VendorDevice != d.VendorDevice:
		return fmt.Sprintf("it was measured on device %s, not %s", c.VendorDevice, d.VendorDevice)
	case c.DriverVersion != d.id.driver:
		return fmt.Sprintf("it was measured with driver %q (version %#x), now %q (%#x)", c.Driver, c.DriverVersion, d.Driver, d.id.driver)
	case c.PipelineCacheUUID != fmt.Sprintf("%x", d.id.uuid):
		return "it was measured with another build of the driver (pipelineCacheUUID differs)"
	}
	return ""
}

// calibrationPath is the calibration file of a device, beside the
// pipeline cache; "" without a cache folder. One file per vendor and
// device ID: a calibration of another driver is found, and said stale.
func calibrationPath(id cacheIdentity) string {
	dir := cacheDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "calibration", fmt.Sprintf("%04x-%04x.json", id.vendor, id.device))
}

// ReadCalibration reads a calibration file; a missing file is nil and no
// error, a bad one an error that names the file and what is wrong.
func ReadCalibration(path string) (*Calibration, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("calibration %s: %w", path, err)
	}
	var c Calibration
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("calibration %s: not a calibration's JSON: %v", path, err)
	}
	if c.Format != calibrationFormat {
		return nil, fmt.Errorf("calibration %s: format %d, not %d", path, c.Format, calibrationFormat)
	}
	if c.VendorDevice == "" || len(c.NsPerSample) == 0 {
		return nil, fmt.Errorf("calibration %s: it names no device or measures no path", path)
	}
	for p, ns := range c.NsPerSample {
		if !(ns > 0) || math.IsInf(ns, 0) {
			return nil, fmt.Errorf("calibration %s: path %s: %v ns a sample is not a time", path, p, ns)
		}
	}
	return &c, nil
}

// SaveCalibration writes c as the calibration of device d and returns the
// file's name.
func SaveCalibration(d Device, c *Calibration) (string, error) {
	path := calibrationPath(d.id)
	if path == "" {
		return "", errors.New("no cache folder for the calibration (set SERTRACE_CACHE_DIR)")
	}
	if len(c.NsPerSample) == 0 {
		return "", fmt.Errorf("calibration of %s: no path was measured", d.Name)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("calibration of %s: %w", d.Name, err)
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return "", err
	}
	if err := atomicfile.WriteBytes(path, append(b, '\n')); err != nil {
		return "", fmt.Errorf("calibration of %s: %w", d.Name, err)
	}
	return path, nil
}

// MeasuredDevice is what the project measured on a kind of device: the
// path auto takes there when the device has no calibration of its own.
type MeasuredDevice struct {
	Vendor  uint32         // the vendor ID (0x10de: NVIDIA)
	Arch    string         // the architecture, as devices shows it
	Names   *regexp.Regexp // the device names of that architecture
	Drivers [2]int         // the driver's major versions measured, inclusive
	Path    string
	Figures string // what was measured, and where it is recorded
}

// MeasuredDevices are the project's own measurements, the ones auto
// trusts when a device has not calibrated itself (benchmarks/results).
var MeasuredDevices = []MeasuredDevice{{
	Vendor: 0x10de, Arch: "NVIDIA Hopper", Names: regexp.MustCompile(`\bG?H(100|200|800|20)\b`), Drivers: [2]int{580, 580},
	Path: PathRTSorted,
	Figures: "on an H200 with driver 580.159, rt-sorted took 8.4 and 16.6 ms where rt took 22.7 and 40.2 ms (cornell, hair, " +
		"320×240, 8 spp; 2.4–2.7×; ser as rt, its reorder mode none); an H100 runs the same architecture and driver " +
		"(benchmarks/results/nvidia-h200-driver580/rt-sorted)",
}}

// matches says whether m describes device d.
func (m MeasuredDevice) matches(d *Device) bool {
	major := driverMajor(d.driverInfo)
	return m.Vendor == d.id.vendor && m.Names.MatchString(d.Name) && major >= m.Drivers[0] && major <= m.Drivers[1]
}

// driverMajor is the first number of a driver's version string ("580" of
// "580.159.04", "25" of "Mesa 25.0.7"), or −1.
func driverMajor(info string) int {
	i := strings.IndexAny(info, "0123456789")
	if i < 0 {
		return -1
	}
	j := i
	for j < len(info) && info[j] >= '0' && info[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(info[i:j])
	if err != nil {
		return -1
	}
	return n
}

// chooseAuto decides auto's path on device d: its calibration cal (calErr:
// why its file could not be read), else the first entry of table that
// matches it, else the first path it offers. A path the device does not
// offer is never chosen, whatever a calibration says of it.
func chooseAuto(d *Device, cal *Calibration, calErr error, table []MeasuredDevice) AutoChoice {
	offered := d.Offered()
	if len(offered) == 0 {
		return AutoChoice{Why: "the device runs no render path"}
	}
	first := offered[0]
	var aside string // why the calibration was not used
	switch {
	case calErr != nil:
		aside = fmt.Sprintf("its calibration is ignored (%v)", calErr)
	case cal != nil:
		if why := cal.stale(d); why != "" {
			aside = "its calibration is stale: " + why
			break
		}
		best := ""
		for _, p := range offered {
			if ns := cal.NsPerSample[p]; ns > 0 && (best == "" || ns < cal.NsPerSample[best]) {
				best = p
			}
		}
		if best == "" {
			aside = "its calibration measured none of the paths it offers"
			break
		}
		return AutoChoice{Path: best, Source: AutoCalibrated, Why: calibratedWhy(cal, best, offered)}
	}
	if aside != "" {
		aside = "; " + aside + " (run sertrace devices --calibrate)"
	}
	for _, m := range table {
		if m.matches(d) && d.Paths[m.Path].Available {
			return AutoChoice{Path: m.Path, Source: AutoMeasured,
				Why: fmt.Sprintf("measured on %s, driver %d: %s; not calibrated on this device%s", m.Arch, m.Drivers[0], m.Figures, aside)}
		}
	}
	if aside == "" {
		aside = "; not measured on this device (run sertrace devices --calibrate)"
	}
	return AutoChoice{Path: first, Source: AutoOrder, Why: "the first path it offers" + aside}
}

// calibratedWhy says what the calibration measured of best against the
// other paths.
func calibratedWhy(cal *Calibration, best string, offered []string) string {
	date := cal.Date
	if len(date) >= 10 {
		date = date[:10]
	}
	why := fmt.Sprintf("calibrated %s (%s): %s a sample", date, cal.Measured, Nanoseconds(cal.NsPerSample[best]))
	var others []string
	for _, p := range offered {
		if ns := cal.NsPerSample[p]; p != best && ns > 0 {
			others = append(others, fmt.Sprintf("%.2f× faster than %s", ns/cal.NsPerSample[best], p))
		}
	}
	if len(others) > 0 {
		why += ", " + strings.Join(others, ", ")
	}
	var unmeasured []string
	for _, p := range offered {
		if cal.NsPerSample[p] == 0 {
			unmeasured = append(unmeasured, p)
		}
	}
	if len(unmeasured) > 0 {
		why += "; " + strings.Join(unmeasured, ", ") + " not measured"
	}
	return why
}

// autoChoice reads device d's calibration and decides its auto path; a
// calibration file that cannot be read is said once per process and
// ignored.
func (d *Device) autoChoice() AutoChoice {
	file := calibrationPath(d.id)
	var cal *Calibration
	var err error
	if file != "" {
		if cal, err = ReadCalibration(file); err != nil {
			noteOnce(err.Error(), fmt.Sprintf("ignoring a calibration: %v", err))
		}
	}
	c := chooseAuto(d, cal, err, MeasuredDevices)
	c.File = file
	return c
}

// noted holds the notes already said in this process.
var noted sync.Map

func noteOnce(key, msg string) {
	if _, said := noted.LoadOrStore(key, true); !said {
		Note(msg)
	}
}

// Offered lists the render paths device d runs, in PathNames' order.
func (d *Device) Offered() []string {
	return slices.DeleteFunc(slices.Clone(PathNames), func(p string) bool { return !d.Paths[p].Available })
}

// Nanoseconds writes a time given in nanoseconds to three figures, in ns,
// µs or ms.
func Nanoseconds(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	}
	return fmt.Sprintf("%.3g ns", ns)
}
