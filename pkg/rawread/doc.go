// Package rawread reads accepted TCP connections without the Go
// scheduler's bookkeeping of a system call that may block.
//
// A read through net.Conn goes through syscall.Syscall, which marks the
// goroutine's P as in a system call. The runtime's monitor thread
// (sysmon) watches such Ps: while some are seen, it wakes every 20 µs or
// so instead of sleeping for up to 10 ms, and one it finds in the same
// call twice is handed to another thread, with a futex wake-up. A read
// of a non-blocking socket never waits: it returns the bytes there are or
// EAGAIN, and the goroutine then parks in the network poller as it does
// now. Listener's connections make that read with syscall.RawSyscall6
// (recvfrom with MSG_DONTWAIT).
//
// On its own this changes nothing measurable; it pays off on a
// connection whose other calls are raw as well — the edge's fast hits
// (pkg/edge, sendHit), whose send and sendfile are — where a hit then
// leaves the monitor nothing to watch (docs/performance.md, "Hits
// without the scheduler").
package rawread
