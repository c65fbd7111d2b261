//go:build long

package longtest

// Enabled is true: the tests were built with the tag long.
const Enabled = true
