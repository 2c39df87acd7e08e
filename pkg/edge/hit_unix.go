//go:build unix

package edge

import "syscall"

func idleFileLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 256
	}
	return int(min(2048, rl.Cur/4))
}
