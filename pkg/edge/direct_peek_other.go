//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package edge

import "net"

// idleConnQuiet has no peek that does not wait here: a kept connection
// the origin closed is found at the request's first read, and the
// request sent again (directTransport.RoundTrip).
func idleConnQuiet(net.Conn) bool { return true }
