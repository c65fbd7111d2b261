// Package unet runs the convolutional U-Nets of Intel Open Image Denoise
// (OIDN) in Go, from OIDN's published weights (.tza tensor archives,
// Apache-2.0, which sertrace does not ship: Fetch installs them): the same
// networks, and the same input and output transforms as OIDN's "RT" filter
// (auto-exposure and the perceptually uniform transfer function for HDR
// colour, [0,1] for normals).
package unet

import (
	"context"
	"fmt"
	"os"
)

// Net is a loaded network.
type Net struct {
	path  string
	in    int // input channels
	topo  topology
	convs map[string]*conv
}

// topology is a U-Net's convolutions: four encoder levels, each followed
// by 2×2 max pooling, the bottleneck, then four decoder levels, each
// after a nearest-neighbour upsampling whose output is concatenated with
// the pooled output of the matching encoder level (the last: the input).
type topology struct {
	enc        [4][]string
	bottleneck []string
	dec        [4][]string // from the coarsest
}

// OIDN's base network and its large one (told apart by enc_conv1b).
var (
	base = topology{
		enc:        [4][]string{{"enc_conv0", "enc_conv1"}, {"enc_conv2"}, {"enc_conv3"}, {"enc_conv4"}},
		bottleneck: []string{"enc_conv5a", "enc_conv5b"},
		dec: [4][]string{{"dec_conv4a", "dec_conv4b"}, {"dec_conv3a", "dec_conv3b"}, {"dec_conv2a", "dec_conv2b"},
			{"dec_conv1a", "dec_conv1b", "dec_conv0"}},
	}
	large = topology{
		enc:        [4][]string{{"enc_conv1a", "enc_conv1b"}, {"enc_conv2a", "enc_conv2b"}, {"enc_conv3a", "enc_conv3b"}, {"enc_conv4a", "enc_conv4b"}},
		bottleneck: []string{"enc_conv5a", "enc_conv5b"},
		dec: [4][]string{{"dec_conv4a", "dec_conv4b"}, {"dec_conv3a", "dec_conv3b"}, {"dec_conv2a", "dec_conv2b"},
			{"dec_conv1a", "dec_conv1b", "dec_conv1c"}},
	}
)

// Load reads a weights file of OIDN's base or large U-Net and checks
// that its convolutions fit together.
func Load(path string) (*Net, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return build(path, b)
}

// build makes the network of a weights file's bytes (read from path).
func build(path string, b []byte) (*Net, error) {
	t, err := parseTZA(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	n := &Net{path: path, topo: base, convs: map[string]*conv{}}
	if _, ok := t["enc_conv1b.weight"]; ok {
		n.topo = large
	}
	for _, name := range n.topo.names() {
		c, err := newConv(t, name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		n.convs[name] = c
	}
	n.in = n.convs[n.topo.enc[0][0]].in
	// Each convolution must take what the one before it gives, and the
	// first of a decoder level the skip connection's channels too.
	var levelOut [4]int
	prev := n.in
	for l, level := range n.topo.enc {
		for _, name := range level {
			if err := n.check(name, prev); err != nil {
				return nil, err
			}
			prev = n.convs[name].out
		}
		levelOut[l] = prev
	}
	for _, name := range n.topo.bottleneck {
		if err := n.check(name, prev); err != nil {
			return nil, err
		}
		prev = n.convs[name].out
	}
	for l, level := range n.topo.dec {
		if l < 3 {
			prev += levelOut[2-l]
		} else {
			prev += n.in
		}
		for _, name := range level {
			if err := n.check(name, prev); err != nil {
				return nil, err
			}
			prev = n.convs[name].out
		}
	}
	if prev != 3 {
		return nil, fmt.Errorf("%s: the network gives %d channels, want 3", path, prev)
	}
	return n, nil
}

// names lists the convolutions.
func (t *topology) names() []string {
	var out []string
	for _, l := range t.enc {
		out = append(out, l...)
	}
	out = append(out, t.bottleneck...)
	for _, l := range t.dec {
		out = append(out, l...)
	}
	return out
}

// check says whether convolution name takes the channels it is given.
func (n *Net) check(name string, given int) error {
	if c := n.convs[name]; c.in != given {
		return fmt.Errorf("%s: %s takes %d channels, the network gives it %d", n.path, name, c.in, given)
	}
	return nil
}

// forward runs the network on an input whose sides are multiples of 16,
// giving 3 channels. Every convolution has a ReLU after it (the last's
// clamps what output processing would clamp anyway).
func (n *Net) forward(ctx context.Context, x *fmap) (*fmap, error) {
	var err error
	convs := func(names []string, m *fmap, skip *fmap) *fmap {
		for k, name := range names {
			if err == nil {
				err = ctx.Err() // between layers: each is a second at most
			}
			if err != nil {
				return nil
			}
			if k == 0 && skip != nil {
				m, err = n.convs[name].apply(true, m, skip)
			} else {
				m, err = n.convs[name].apply(true, m)
			}
		}
		return m
	}
	var pooled [4]*fmap
	m := x
	for l, level := range n.topo.enc {
		if m = convs(level, m, nil); err != nil {
			return nil, err
		}
		m = pool(m)
		pooled[l] = m
	}
	m = convs(n.topo.bottleneck, m, nil)
	for l, level := range n.topo.dec {
		if err != nil {
			return nil, err
		}
		skip := x
		if l < 3 {
			skip = pooled[2-l]
		}
		m = convs(level, upsample(m), skip)
	}
	return m, err
}
