package cpu

import (
	"runtime"
	"testing"
)

// TestModelName: the processor's name comes with its family and model
// numbers, the first processor's, which tell a cloud's Zen 3 from its Zen
// 4; without a name, the architecture, with arm64's implementer and part.
func TestModelName(t *testing.T) {
	for _, c := range []struct{ cpuinfo, want string }{
		{"processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC\nstepping\t: 0\n\nprocessor\t: 1\ncpu family\t: 26\nmodel\t\t: 2\nmodel name\t: other\n",
			"AMD EPYC (family 25 model 17)"},
		{"processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\nmodel name\t: Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz\n",
			"Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz (family 6 model 143)"},
		{"processor\t: 0\nmodel name\t: Some CPU\n", "Some CPU"},
		{"processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd40\n\nprocessor\t: 1\nCPU part\t: 0xd41\n",
			runtime.GOARCH + " (implementer 0x41 part 0xd40)"},
		{"processor\t: 0\nBogoMIPS\t: 50.00\n", runtime.GOARCH},
		{"", runtime.GOARCH},
	} {
		if got := modelName(c.cpuinfo); got != c.want {
			t.Errorf("%q: %q, want %q", c.cpuinfo, got, c.want)
		}
	}
}
