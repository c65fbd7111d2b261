package batch

import (
	"fmt"
	"path/filepath"

	"sertrace/render"
)

// Unit is a unit of a batch's work: a job, or one slice of a split job.
type Unit struct {
	Job   int // index in Config.Jobs
	Slice int // the slice, or −1: the whole job
}

// Units lists a config's units in order: each job, or its slices.
func (c *Config) Units() []Unit {
	var out []Unit
	for i, job := range c.Jobs {
		if job.Split > 1 {
			for k := range job.Split {
				out = append(out, Unit{i, k})
			}
			continue
		}
		out = append(out, Unit{i, -1})
	}
	return out
}

// UnitName names a unit: the job's name, and #K for slice K.
func (c *Config) UnitName(u Unit) string {
	if u.Slice < 0 {
		return c.Jobs[u.Job].Name
	}
	return fmt.Sprintf("%s#%d", c.Jobs[u.Job].Name, u.Slice)
}

// sliceRange is the samples of slice k of a job split in n: [first, first+count).
func sliceRange(spp, k, n int) (first, count int) {
	first = k * spp / n
	return first, (k+1)*spp/n - first
}

// share is this run's units.
func (r *Runner) share() ([]Unit, error) {
	cfg := r.Config
	all := cfg.Units()
	if r.Units != nil {
		byName := map[string]Unit{}
		for _, u := range all {
			byName[cfg.UnitName(u)] = u
		}
		var listed []Unit
		for _, name := range r.Units {
			u, ok := byName[name]
			if !ok {
				return nil, fmt.Errorf("unit %q of the list to render is not one of %s's (was the config edited after the submission?)", name, cfg.path)
			}
			listed = append(listed, u)
		}
		all = listed
	}
	if r.Shards == 0 {
		return all, nil
	}
	if r.Shard < 0 || r.Shard >= r.Shards {
		return nil, fmt.Errorf("share %d of %d does not exist (0..%d)", r.Shard, r.Shards, r.Shards-1)
	}
	var mine []Unit
	for i := r.Shard; i < len(all); i += r.Shards {
		mine = append(mine, all[i])
	}
	return mine, nil
}

// samples is slice k's samples, as --samples gives them.
func (p *prepared) samples(k int) string {
	first, count := sliceRange(p.job.SPP, k, p.job.Split)
	return fmt.Sprintf("%d:%d", first, count)
}

// checkpointKey is what the checkpoint of slice k (−1: the whole job) is
// of.
func (p *prepared) checkpointKey(k int) string {
	if k < 0 {
		return p.cpKey
	}
	return p.cpKey + p.samples(k)
}

// sliceInfo is what slice k of the job is a slice of.
func (p *prepared) sliceInfo(k int) render.SliceInfo {
	first, count := sliceRange(p.job.SPP, k, p.job.Split)
	return render.SliceInfo{Scene: p.job.Scene, Content: p.content, Build: render.BuildID(), Settings: p.job.Settings.ForSlice(),
		SPP: p.job.SPP, First: first, Count: count}
}

// sliceFile is a file of slice k of the job in dir: its EXR, record
// (json), lock or checkpoint (checkpoint.gob).
func sliceFile(dir string, k int, ext string) string {
	return filepath.Join(dir, "slices", fmt.Sprintf("%d.%s", k, ext))
}

// sliceDone reports whether slice k of the job is rendered in dir, for the
// job's settings and scene as they are (whatever rendered it), and what its
// header says.
func (p *prepared) sliceDone(dir string, k int) (render.SliceInfo, bool) {
	info, err := render.ReadSliceInfo(sliceFile(dir, k, "exr"))
	return info, err == nil && sameSlice(info, p.sliceInfo(k))
}

// sameSlice reports whether a slice on disk is the one wanted (whatever
// rendered it).
func sameSlice(have, want render.SliceInfo) bool {
	return have.Content == want.Content && have.Build == want.Build && have.Settings == want.Settings &&
		have.SPP == want.SPP && have.First == want.First && have.Count == want.Count
}
