package expire

import "golang.org/x/sys/unix"

// threadCPU returns the CPU time (user and system) the calling thread has
// used, and true; the caller holds its thread (runtime.LockOSThread).
// The gateway runs on Linux only (storage uses openat2); false, should
// the call fail, makes the worker pace by wall time.
func threadCPU() (int64, bool) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
