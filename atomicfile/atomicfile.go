// Package atomicfile writes files through a temporary name in the same
// folder and a rename, so that a crash or a full disk never leaves a
// truncated file where a complete one was.
//
// A temporary is named .NAME.sertrace-DIGITS beside its file and locked
// (flock) while it is written: one that no process holds is what a killed
// writer left, found (Stale) and removed once the next write of that file
// is done. (Where the file system has no locks, temporaries are written
// unlocked and never taken for stale; where its locks are not shared
// between machines, two machines writing one file can take each other's
// for stale.) A file
// written keeps the mode of the one it replaces, or gets the umask's; a
// symbolic link is followed, and its target written. Abort removes every
// temporary in progress, for a process about to exit in the middle of a
// write.
package atomicfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Removed is told each temporary of a killed writer that a write removes,
// and its size, for the command to say so; nil says nothing.
var Removed func(path string, size int64)

// Temp is a file being written under a temporary name, until Commit
// renames it onto its target or Discard removes it.
type Temp struct {
	*os.File
	target string // the file it becomes (a symbolic link's target)
	mode   os.FileMode
	Keep   bool // left for a later run (Stale) by Abort, not removed
}

// tempInfix marks sertrace's temporaries: .NAME.sertrace-DIGITS.
const tempInfix = ".sertrace-"

var (
	mu      sync.Mutex
	pending = map[*Temp]bool{}
	aborted bool
)

// umask is the process's, read once (reading it means setting it).
var umask = func() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}()

// Create starts writing path (its target, where it is a symbolic link)
// under a locked temporary beside it, after removing the temporaries that
// killed writers of it left.
func Create(path string) (*Temp, error) {
	target, err := Target(path)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	mode := 0o666 &^ umask
	if fi, err := os.Stat(target); err == nil {
		if fi.IsDir() {
			return nil, fmt.Errorf("write %s: is a directory", path)
		}
		mode = fi.Mode().Perm()
	}
	mu.Lock()
	defer mu.Unlock()
	if aborted {
		return nil, fmt.Errorf("write %s: aborted", path)
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+tempInfix+"*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, unwrap(err))
	}
	if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil && !noLocks(err) {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("write %s: lock %s: %w", path, f.Name(), err)
	}
	t := &Temp{File: f, target: target, mode: mode}
	pending[t] = true
	return t, nil
}

// Commit completes the file: the temporary, closed, becomes the target,
// and the temporaries killed writers of it left are removed. On an error
// the temporary is removed and the target left as it was.
func (t *Temp) Commit() error {
	if err := t.commit(); err != nil {
		return err
	}
	RemoveStale(t.target)
	return nil
}

func (t *Temp) commit() error {
	err := t.Chmod(t.mode)
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	mu.Lock()
	defer mu.Unlock()
	if !pending[t] {
		return fmt.Errorf("write %s: aborted", t.target)
	}
	delete(pending, t)
	if err == nil {
		err = os.Rename(t.Name(), t.target)
	}
	if err != nil {
		os.Remove(t.Name())
		return fmt.Errorf("write %s: %w", t.target, unwrap(err))
	}
	return nil
}

// Leave closes the temporary and leaves it where it is, for a later run
// to find (Stale) and continue: what a write that failed (a full disk)
// had done is not thrown away.
func (t *Temp) Leave() { t.end(false) }

// Discard removes the temporary; the target stays as it was.
func (t *Temp) Discard() { t.end(true) }

// end closes a temporary still being written, and removes it where
// remove says so.
func (t *Temp) end(remove bool) {
	mu.Lock()
	defer mu.Unlock()
	if pending[t] {
		delete(pending, t)
		t.Close()
		if remove {
			os.Remove(t.Name())
		}
	}
}

// Target is the file a write of path replaces: path, or where its
// symbolic links lead (a link to nothing yet too).
func Target(path string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			// From the folder the link is really in: its path's own links
			// followed first, as the kernel does (a/link/../x is not a/x).
			dir, err := filepath.EvalSymlinks(filepath.Dir(path))
			if err != nil {
				dir = filepath.Dir(path)
			}
			to = filepath.Join(dir, to)
		}
		path = to
	}
	return "", errors.New("too many levels of symbolic links")
}

// SameFile reports whether paths a and b name one file: through other
// spellings, ./, symbolic links (a link to a file not there yet too) or a
// hard link; what a write of one would do to the other.
func SameFile(a, b string) bool {
	fa, ea := os.Stat(a)
	fb, eb := os.Stat(b)
	switch {
	case ea == nil && eb == nil:
		return os.SameFile(fa, fb)
	case ea == nil || eb == nil:
		return false
	}
	return madeAt(a) == madeAt(b)
}

// madeAt is the absolute path a file not there yet would be made at by a
// write of path, its links and its folder's followed.
func madeAt(path string) string {
	if target, err := Target(path); err == nil {
		path = target
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		dir = filepath.Dir(path)
	}
	abs, err := filepath.Abs(filepath.Join(dir, filepath.Base(path)))
	if err != nil {
		return path
	}
	return abs
}

// Abort removes every temporary being written (but those to Keep, only
// closed, for the next run) and refuses new ones, for a process that is
// about to exit mid-write; it returns the files whose writing it ended.
func Abort() (removed, kept []string) {
	mu.Lock()
	defer mu.Unlock()
	aborted = true
	for t := range pending {
		t.Close()
		if t.Keep {
			kept = append(kept, t.Name())
			continue
		}
		os.Remove(t.Name())
		removed = append(removed, t.target)
	}
	clear(pending)
	return removed, kept
}

// Write creates path with what write puts in it, atomically: readers see
// the old file or the whole new one. Errors name the path.
func Write(path string, write func(io.WriteSeeker) error) error {
	t, err := Create(path)
	if err != nil {
		return err
	}
	if err := write(t.File); err != nil {
		t.Discard()
		return fmt.Errorf("write %s: %w", path, unwrap(err))
	}
	return t.Commit()
}

// WriteBytes writes data to path atomically.
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.WriteSeeker) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteJSON writes v to path atomically as indented JSON ending in a
// newline.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return WriteBytes(path, append(b, '\n'))
}

// Stale lists the temporaries of path (its target) that no writer holds:
// what writers killed outright (SIGKILL, an out-of-memory kill, a lost
// node) left behind.
func Stale(path string) []string {
	target, err := Target(path)
	if err != nil {
		return nil
	}
	dir, prefix := filepath.Dir(target), "."+filepath.Base(target)+tempInfix
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var stale []string
	for _, e := range entries {
		name := e.Name()
		digits := strings.TrimPrefix(name, prefix)
		if len(digits) == len(name) || digits == "" || strings.Trim(digits, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, name)
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if flock(f, syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			stale = append(stale, p)
		}
		f.Close()
	}
	return stale
}

// Claim opens a temporary that Stale found and locks it, as its writer
// did: no write removes it while the caller reads what it holds (a killed
// render's bands, to continue them). The caller closes it, and removes it
// once done with it.
func Claim(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// RemoveStale removes the temporaries Stale finds, telling Removed each.
func RemoveStale(path string) {
	for _, p := range Stale(path) {
		fi, err := os.Stat(p)
		if err != nil || os.Remove(p) != nil {
			continue
		}
		if Removed != nil {
			Removed(p, fi.Size())
		}
	}
}

// noLocks reports whether a lock failed because the file system has none
// (Lustre without flock, NFSv3 without lockd, some FUSE mounts).
func noLocks(err error) bool {
	return errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.EINVAL)
}

// flock takes a lock on f, retrying when a signal interrupts the call.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

func unwrap(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
