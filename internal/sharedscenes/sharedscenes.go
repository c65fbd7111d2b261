// Package sharedscenes finds ../shared/scenes, the glTF sample scenes other
// people wrote, beside the checkout, for the tests that read them. Where
// the folder is absent such a test skips, saying so; in CI (the variable CI
// set, as .ci/run sets it) it fails instead, so that a CI without the
// scenes cannot pass without rendering them.
package sharedscenes

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the shared scenes' folder, skipping t where it is absent
// (failing it in CI).
func Dir(t testing.TB) string {
	t.Helper()
	return Path(t, "")
}

// Path returns the path of rel inside the shared scenes' folder, skipping
// t where it is absent (failing it in CI).
func Path(t testing.TB, rel string) string {
	t.Helper()
	dir, err := locate()
	return check(t, dir, err, rel, os.Getenv("CI") != "")
}

// Find returns the shared scenes' folder and whether it is there, never
// skipping: for what uses the scenes where present (a fuzz target's seeds).
func Find() (string, bool) {
	dir, err := locate()
	if err != nil {
		return "", false
	}
	info, err := os.Stat(dir)
	return dir, err == nil && info.IsDir()
}

// check skips or fails t when dir (or the error that locating it gave)
// does not hold rel, and returns the path otherwise.
func check(t testing.TB, dir string, err error, rel string, ci bool) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err == nil {
		_, err = os.Stat(p)
	}
	if err != nil {
		if ci {
			t.Fatalf("%s is absent: in CI the shared scenes must be beside the checkout, at ../shared/scenes: %v", p, err)
		}
		t.Skipf("%s is absent (../shared/scenes is not beside the checkout): %v", p, err)
	}
	return p
}

// locate returns ../shared/scenes beside the module root (the folder above
// the working directory that holds go.mod), relative to the working
// directory, as the tests wrote it before.
func locate() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for root := wd; ; {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			dir := filepath.Join(root, "..", "shared", "scenes")
			if rel, err := filepath.Rel(wd, dir); err == nil {
				return rel, nil
			}
			return dir, nil
		}
		up := filepath.Dir(root)
		if up == root {
			return "", errors.New("no go.mod above " + wd)
		}
		root = up
	}
}
