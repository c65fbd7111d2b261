"""Finding the sertrace binary and checking that it is new enough."""

import os
import shutil
import subprocess

# What this add-on asks of the binary, each with the flag its
# `render --help` lists: an older sertrace lacks them.
REQUIRED_FLAGS = ("--progress", "--preview")


class SertraceMissing(Exception):
    """No usable sertrace binary: the message says where it looked and why."""


_checked = {}  # path -> (inode, mtime in ns, size) of a binary found good


def find(preference=""):
    """The sertrace binary to run: the add-on preference's path, else
    $SERTRACE, else `sertrace` on PATH; checked to run and to be new
    enough. Raises SertraceMissing with one line saying what to do."""
    for source, path in (("the add-on's preferences", preference), ("$SERTRACE", os.environ.get("SERTRACE", ""))):
        if path:
            path = os.path.abspath(os.path.expanduser(bpy_abspath(path)))
            if not os.path.isfile(path) or not os.access(path, os.X_OK):
                raise SertraceMissing("sertrace: %s names %s, which is not an executable file" % (source, path))
            return check(path)
    path = shutil.which("sertrace")
    if path is None:
        raise SertraceMissing(
            "sertrace: no binary found: set its path in the add-on's preferences "
            "(Edit > Preferences > Add-ons > sertrace) or in $SERTRACE, or put it on PATH")
    return check(path)


def bpy_abspath(path):
    """A path that may be relative to the .blend file (//...)."""
    try:
        import bpy
        return bpy.path.abspath(path)
    except ImportError:
        return path


def check(path):
    """path, once `path render --help` runs and lists every flag the
    add-on uses; raises SertraceMissing otherwise."""
    st = os.stat(path)
    if _checked.get(path) == (st.st_ino, st.st_mtime_ns, st.st_size):
        return path
    try:
        out = subprocess.run([path, "render", "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SertraceMissing("sertrace: %s does not run: %s" % (path, e)) from None
    missing = [f for f in REQUIRED_FLAGS if f not in out.stdout + out.stderr]
    if out.returncode != 0 or missing:
        raise SertraceMissing(
            "sertrace: %s is too old for this add-on (its render has no %s): build a newer one "
            "(go build -o sertrace ./app in the sertrace repository)" % (path, " or ".join(missing) or "help"))
    _checked[path] = (st.st_ino, st.st_mtime_ns, st.st_size)
    return path
