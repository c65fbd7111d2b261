//go:build !long

package longtest

// Enabled is false: the tests were built without the tag long.
const Enabled = false
