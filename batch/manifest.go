package batch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sertrace/render"
	"sertrace/scene"
)

// manifest records what a job's outputs were made from.
type manifest struct {
	Key     string            `json:"key"` // hash of the settings and the scene's content
	Outputs map[string]string `json:"outputs"`
	Samples int               `json:"samples_per_pixel"`
}

// upToDate reports whether a job's outputs match its manifest, and lists them.
func (p *prepared) upToDate(dir string) (bool, []string, int) {
	m, ok := readManifest(dir)
	if !ok || m.Key != p.key || !outputsMatch(dir, m, p.outputs) {
		return false, nil, 0
	}
	var names []string
	for _, o := range p.outputs {
		names = append(names, o.name)
	}
	return true, names, m.Samples
}

func readManifest(dir string) (manifest, bool) {
	var m manifest
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	return m, err == nil && json.Unmarshal(b, &m) == nil
}

func outputsMatch(dir string, m manifest, outputs []output) bool {
	for _, o := range outputs {
		h, err := fileHash(filepath.Join(dir, o.name))
		if err != nil || h != m.Outputs[o.name] {
			return false
		}
	}
	return true
}

func fileHash(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:]), nil
}

// jobKey hashes what a job's result depends on: the renderer's build, the
// job's settings (not the thread count or the memory budget, which change
// nothing), and the content of its files (contentHash).
func jobKey(job JobConfig, content string) string {
	h := sha256.New()
	h.Write([]byte(render.BuildID()))
	job.Threads, job.Split, job.MemoryBudget = 0, 0, "" // a split job's image is the same bit for bit
	settings, _ := json.Marshal(job)
	h.Write(settings)
	h.Write([]byte(content))
	return hex.EncodeToString(h.Sum(nil))
}

// contentHash hashes the bytes of a job's scene, the buffers and images it
// refers to, and its environment (scene.ContentHash).
// A run hashes each scene once: its units and its summary ask again.
func (r *Runner) contentHash(job JobConfig, scenePath string) (string, error) {
	var extra []string
	if job.Env != "" {
		extra = append(extra, r.Config.resolve(job.Env))
	}
	key := scenePath + "\x00" + strings.Join(extra, "\x00")
	if h, ok := r.hashes[key]; ok {
		return h, nil
	}
	h, err := scene.ContentHash(scenePath, extra...)
	if err != nil {
		return "", fmt.Errorf("load %s: %w", scenePath, unwrap(err))
	}
	if r.hashes == nil {
		r.hashes = map[string]string{}
	}
	r.hashes[key] = h
	return h, nil
}
