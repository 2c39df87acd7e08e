//go:build race

package rawread

const raceEnabled = true
