package main

import (
	"context"

	"github.com/objectgateway/objectgateway/bench"
)

// runBench is the bench subcommand: measure S3 endpoints, or serve the
// static-file baseline (--serve-static). The work is in package bench.
func runBench(ctx context.Context, args []string, e env) error {
	return bench.Main(ctx, args, e.stdout, e.stderr, e.getenv)
}
