//go:build linux && !(amd64 || arm64 || riscv64 || loong64 || ppc64le || s390x)

package edge

import "syscall"

// On this architecture a fast hit's calls go through the scheduler (see
// nopark_linux64.go).

func sendNoPark(fd int, b []byte, flags int) (int, error) {
	return syscall.SendmsgN(fd, b, nil, nil, flags|syscall.MSG_DONTWAIT)
}

func sendfileRaw(out, in int, off *int64, n int) (int, error) {
	return syscall.Sendfile(out, in, off, n)
}

func cachestatRaw(fd int, off, n int64) (uint64, syscall.Errno) { return 0, syscall.ENOSYS }

func pageCacheFS(dir string) bool { return false }
