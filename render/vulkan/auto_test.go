package vulkan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeDevice is a device as describe would make it, offering paths.
func fakeDevice(name string, vendor, device, driver uint32, info string, paths ...string) *Device {
	d := &Device{Name: name, VendorDevice: vendorDevice(vendor, device), Driver: "NVIDIA " + info, driverInfo: info,
		id: cacheIdentity{vendor: vendor, device: device, driver: driver, uuid: [16]byte{1, 2, 3}}, Paths: map[string]PathStatus{}}
	for _, p := range PathNames {
		d.Paths[p] = PathStatus{Reason: "not offered in this test"}
	}
	for _, p := range paths {
		d.Paths[p] = PathStatus{Available: true}
	}
	return d
}

func vendorDevice(vendor, device uint32) string { return fmt.Sprintf("%04x:%04x", vendor, device) }

// TestAutoChoice: the device's calibration beats the project's table,
// which beats the fixed order; a path the device does not offer is never
// chosen, whatever a calibration says; a calibration of another driver,
// device or driver build, or one that could not be read, is not used and
// auto says why.
func TestAutoChoice(t *testing.T) {
	const driver580, driver590 = 580<<22 | 159<<14 | 4<<6, 590<<22 | 1<<14
	h200 := fakeDevice("NVIDIA H200", 0x10de, 0x2335, driver580, "580.159.04", PathSER, PathRT, PathRTSorted)
	h100 := fakeDevice("NVIDIA H100 80GB HBM3", 0x10de, 0x2330, driver580, "580.159.04", PathSER, PathRT, PathRTSorted)
	newer := fakeDevice("NVIDIA H200", 0x10de, 0x2335, driver590, "590.1.0", PathSER, PathRT, PathRTSorted)
	noSorted := fakeDevice("NVIDIA H200", 0x10de, 0x2335, driver580, "580.159.04", PathSER, PathRT)
	ada := fakeDevice("NVIDIA GeForce RTX 4090", 0x10de, 0x2684, driver580, "580.159.04", PathSER, PathRT, PathRTSorted)
	mesa := fakeDevice("llvmpipe (LLVM 15.0.6, 256 bits)", 0x10005, 0, 1, "Mesa 25.0.7", PathRT, PathRayQuery, PathRTSorted)
	none := fakeDevice("old GPU", 0x1002, 0x1, 1, "1.0")

	cal := func(d *Device, ns map[string]float64) *Calibration {
		c := NewCalibration(*d, "2026-12-06T07:00:00Z", "test", "cornell, 32x24")
		c.NsPerSample = ns
		return c
	}
	rtFastest := map[string]float64{PathSER: 40, PathRT: 30, PathRTSorted: 35}
	for _, tc := range []struct {
		name         string
		d            *Device
		cal          *Calibration
		calErr       error
		path, source string
		why          []string
	}{
		{"the table, on an H200", h200, nil, nil, PathRTSorted, AutoMeasured, []string{"measured on NVIDIA Hopper", "not calibrated"}},
		{"the table, on an H100", h100, nil, nil, PathRTSorted, AutoMeasured, nil},
		{"a driver the table has not measured", newer, nil, nil, PathSER, AutoOrder, []string{"first path", "devices --calibrate"}},
		{"the table's path not offered", noSorted, nil, nil, PathSER, AutoOrder, nil},
		{"another architecture", ada, nil, nil, PathSER, AutoOrder, nil},
		{"lavapipe, nothing measured", mesa, nil, nil, PathRT, AutoOrder, nil},
		{"no path", none, nil, nil, "", "", []string{"no render path"}},
		{"calibration beats the table", h200, cal(h200, rtFastest), nil, PathRT, AutoCalibrated,
			[]string{"calibrated 2026-12-06 (cornell, 32x24): 30 ns a sample", "1.33× faster than ser", "1.17× faster than rt-sorted"}},
		{"calibration beats the order", ada, cal(ada, map[string]float64{PathSER: 40, PathRT: 30}), nil, PathRT, AutoCalibrated,
			[]string{"rt-sorted not measured"}},
		{"a calibrated path not offered", noSorted, cal(noSorted, map[string]float64{PathSER: 40, PathRT: 30, PathRTSorted: 10}), nil,
			PathRT, AutoCalibrated, nil},
		{"a calibration of none it offers", noSorted, cal(noSorted, map[string]float64{PathRTSorted: 10}), nil,
			PathSER, AutoOrder, []string{"measured none of the paths"}},
		{"another driver's calibration", newer, cal(h200, rtFastest), nil, PathSER, AutoOrder,
			[]string{"stale", `driver "NVIDIA 580.159.04"`, `now "NVIDIA 590.1.0"`}},
		{"another driver's calibration, the table", h200, cal(newer, rtFastest), nil, PathRTSorted, AutoMeasured, []string{"stale"}},
		{"another device's calibration", h100, cal(h200, rtFastest), nil, PathRTSorted, AutoMeasured, []string{"measured on device 10de:2335"}},
		{"another driver build's calibration", h200, func() *Calibration { c := cal(h200, rtFastest); c.PipelineCacheUUID = "00"; return c }(), nil,
			PathRTSorted, AutoMeasured, []string{"pipelineCacheUUID"}},
		{"an unreadable calibration", ada, nil, os.ErrPermission, PathSER, AutoOrder, []string{"ignored (permission denied)"}},
	} {
		got := chooseAuto(tc.d, tc.cal, tc.calErr, MeasuredDevices)
		if got.Path != tc.path || got.Source != tc.source {
			t.Errorf("%s: auto takes %q (%s: %s), want %q (%s)", tc.name, got.Path, got.Source, got.Why, tc.path, tc.source)
		}
		for _, w := range tc.why {
			if !strings.Contains(got.Why, w) {
				t.Errorf("%s: %q does not say %q", tc.name, got.Why, w)
			}
		}
		if strings.Contains(got.Why, "\n") {
			t.Errorf("%s: %q is not one line", tc.name, got.Why)
		}
	}
}

// TestCalibrationFile: a calibration goes to its file beside the pipeline
// cache and back whole; a file that is not one is an error of one line
// that names it, and auto then ignores it with a note said once.
func TestCalibrationFile(t *testing.T) {
	t.Setenv("SERTRACE_CACHE_DIR", t.TempDir())
	d := fakeDevice("NVIDIA H200", 0x10de, 0x2335, 580<<22, "580.159.04", PathSER, PathRT, PathRTSorted)
	c := NewCalibration(*d, "2026-12-06T07:00:00Z", "test", "cornell")
	c.NsPerSample = map[string]float64{PathRT: 30.5, PathRTSorted: 12.25}
	file, err := SaveCalibration(*d, c)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(os.Getenv("SERTRACE_CACHE_DIR"), "calibration", "10de-2335.json"); file != want {
		t.Errorf("saved to %s, want %s", file, want)
	}
	back, err := ReadCalibration(file)
	if err != nil || back == nil {
		t.Fatalf("read back: %v", err)
	}
	if back.NsPerSample[PathRTSorted] != 12.25 || back.stale(d) != "" || back.Date != c.Date || back.Measured != "cornell" {
		t.Errorf("read back %+v, stale %q", back, back.stale(d))
	}
	if got := d.autoChoice(); got.Path != PathRTSorted || got.Source != AutoCalibrated || got.File != file {
		t.Errorf("auto with the file: %+v", got)
	}
	if c, err := ReadCalibration(filepath.Join(t.TempDir(), "absent.json")); c != nil || err != nil {
		t.Errorf("a missing file: %v, %v", c, err)
	}

	var notes []string
	defer func(n func(string)) { Note = n }(Note)
	Note = func(s string) { notes = append(notes, s) }
	for _, bad := range []struct{ name, data, says string }{
		{"empty", "", "not a calibration's JSON"},
		{"truncated", `{"format": 1, "vendor_device": "10de:2335", "ns_per`, "not a calibration's JSON"},
		{"a list", `[1, 2]`, "not a calibration's JSON"},
		{"a later format", `{"format": 2, "vendor_device": "10de:2335", "ns_per_sample": {"rt": 1}}`, "format 2, not 1"},
		{"no figures", `{"format": 1, "vendor_device": "10de:2335"}`, "measures no path"},
		{"a negative time", `{"format": 1, "vendor_device": "10de:2335", "ns_per_sample": {"rt": -3}}`, "path rt: -3 ns a sample is not a time"},
		{"a zero time", `{"format": 1, "vendor_device": "10de:2335", "ns_per_sample": {"rt-sorted": 0}}`, "is not a time"},
		{"a string", `{"format": 1, "vendor_device": "10de:2335", "ns_per_sample": {"rt": "fast"}}`, "not a calibration's JSON"},
	} {
		if err := os.WriteFile(file, []byte(bad.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadCalibration(file)
		if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), bad.says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line naming %s and saying %q", bad.name, err, file, bad.says)
		}
		notes = nil
		noted.Clear() // said once per process: a case after one with the same error would say nothing
		for range 2 {
			got := d.autoChoice()
			if got.Path != PathRTSorted || got.Source != AutoMeasured || !strings.Contains(got.Why, "calibration is ignored") {
				t.Errorf("%s: auto %+v", bad.name, got)
			}
		}
		if len(notes) != 1 || !strings.Contains(notes[0], file) {
			t.Errorf("%s: notes %q, want one naming the file", bad.name, notes)
		}
	}
	// A folder where the file should be: an error, not a panic.
	os.Remove(file)
	os.Mkdir(file, 0o755)
	if _, err := ReadCalibration(file); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("a folder: %v", err)
	}
}

// TestDriverMajor: the number the table's driver ranges compare.
func TestDriverMajor(t *testing.T) {
	for in, want := range map[string]int{"580.159.04": 580, "Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)": 25, "": -1, "none": -1} {
		if got := driverMajor(in); got != want {
			t.Errorf("driverMajor(%q) = %d, want %d", in, got, want)
		}
	}
}
