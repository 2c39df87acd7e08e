//go:build !unix

package edge

func idleFileLimit() int { return 2048 }
