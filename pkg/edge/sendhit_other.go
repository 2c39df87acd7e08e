//go:build !linux

package edge

import (
	"io"
	"os"
)

// sendHit writes head, then n bytes of f from offset off, on w.
func sendHit(w io.Writer, head []byte, f *os.File, off, n int64, _ *disk) error {
	if _, err := w.Write(head); err != nil {
		return err
	}
	return sendRange(w, f, off, n)
}

// sendBytes writes b on w.
func sendBytes(w io.Writer, b []byte) error {
	_, err := w.Write(b)
	return err
}

// pageCacheFS: raw sends are made on Linux only (nopark_linux64.go).
func pageCacheFS(string) bool { return false }
