package main

import (
	"os"
	"path/filepath"

	"sertrace/atomicfile"
)

// file is a path a command reads or writes, with what it is to the
// command, for the messages ("-o", "--stats", "the scene", "texture").
type file struct {
	what, path string
}

// checkOutputs refuses, before anything is read or written, outputs that
// cannot be written (in a folder that is not there, or a folder
// themselves) and outputs that are one of the inputs or another output:
// the same file through another spelling, ./, symbolic links or a hard
// link. Each refusal is one line naming both files (exit status 2).
func checkOutputs(outputs, inputs []file) error {
	var outs []file
	for _, out := range outputs {
		if out.path == "" {
			continue
		}
		if fi, err := os.Stat(out.path); err == nil && fi.IsDir() {
			return usagef("%s %s is a folder: name the file to write", out.what, out.path)
		}
		dir := filepath.Dir(out.path)
		if fi, err := os.Stat(dir); err != nil {
			return usagef("%s %s: the folder %s does not exist", out.what, out.path, dir)
		} else if !fi.IsDir() {
			return usagef("%s %s: %s is not a folder", out.what, out.path, dir)
		}
		for _, in := range inputs {
			if in.path != "" && atomicfile.SameFile(out.path, in.path) {
				return usagef("%s %s is %s %s: it would be overwritten; write elsewhere", out.what, out.path, in.what, in.path)
			}
		}
		for _, o := range outs {
			if atomicfile.SameFile(out.path, o.path) {
				return usagef("%s %s is also %s %s: give them different files", out.what, out.path, o.what, o.path)
			}
		}
		outs = append(outs, out)
	}
	return nil
}
