//go:build unix

package edge

import "syscall"

func idleFileLimit() int { return fileLimit(2048) }

func syncFileLimit() int { return fileLimit(16384) }

// fileLimit is n, or a quarter of the process's descriptor limit when
// that is lower.
func fileLimit(n uint64) int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 256
	}
	// Cur is an int64 on some systems (FreeBSD).
	return int(min(n, uint64(rl.Cur)/4))
}
