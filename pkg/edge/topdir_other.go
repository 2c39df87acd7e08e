//go:build !linux

package edge

// markTopDir is a no-op where the file system's flag is not reachable
// (see topdir_linux.go).
func markTopDir(string) {}
