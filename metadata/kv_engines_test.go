package metadata

import "testing"

// kvEngineMaker opens a fresh, empty engine for a test; the contract
// suite (kv_contract_test.go) and the model test run against every
// engine in kvEngineMakers. Each engine's own test file adds itself from
// an init function.
type kvEngineMaker struct {
	name string
	// open returns a fresh, empty engine, closed by t.Cleanup.
	open func(t *testing.T) engine
	// shared, when not nil, returns a second handle on the store behind
	// e, as another process sharing it would have (PostgreSQL); engines
	// that one process owns (bbolt) leave it nil.
	shared func(t *testing.T, e engine) engine
}

var kvEngineMakers []kvEngineMaker
