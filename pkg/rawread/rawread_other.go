//go:build !linux

package rawread

import "net"

// Listener returns ln: raw reads are made on Linux only.
func Listener(ln net.Listener) net.Listener { return ln }
