//go:build !unix

package edge

func idleFileLimit() int { return 2048 }

func syncFileLimit() int { return 1024 }
