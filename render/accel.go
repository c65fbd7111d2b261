package render

import "fmt"

// The CPU backend's tracers, as --accel, batch's and bench's accel key and
// Options.Accel name them.
const (
	AccelAuto   = "auto"   // Embree where it loads, else the BVH
	AccelEmbree = "embree" // Intel Embree, loaded at run time
	AccelBVH    = "bvh"    // sertrace's own
)

// CheckAccel refuses a tracer name that is none of the above ("" is auto).
func CheckAccel(name string) error {
	switch name {
	case "", AccelAuto, AccelEmbree, AccelBVH:
		return nil
	}
	return fmt.Errorf("unknown tracer %q (%s, %s or %s)", name, AccelAuto, AccelEmbree, AccelBVH)
}
