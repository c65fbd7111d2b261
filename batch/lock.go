package batch

import (
	"fmt"
	"os"
	"syscall"
)

// lock takes an exclusive flock on path (made if need be), waiting for it
// when wait is set, else failing with errBusy while another holds it. The
// kernel releases it when the holder exits, however it exits (kill -9, an
// out-of-memory kill, a lost node's NFSv4 lease), so no stale lock ever
// blocks the next run. The returned function releases it.
func lock(path string, wait bool) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, unwrap(err))
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		if err == syscall.EWOULDBLOCK {
			return nil, errBusy
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
