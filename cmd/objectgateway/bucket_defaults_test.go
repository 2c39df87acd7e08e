package main

import (
	"io"
	"testing"

	"github.com/objectgateway/objectgateway/api"
)

// TestParseConfigNewBucketDefaults checks --new-bucket-defaults: legacy
// by default, aws2023 on request, anything else refused at start.
func TestParseConfigNewBucketDefaults(t *testing.T) {
	env := func(string) string { return "" }
	c, err := parseConfig(nil, io.Discard, env)
	if err != nil || newBucketDefaults(c.newBucketDefaults) != api.DefaultsLegacy {
		t.Fatalf("default: %q %v", c.newBucketDefaults, err)
	}
	c, err = parseConfig([]string{"--new-bucket-defaults", "aws2023"}, io.Discard, env)
	if err != nil || newBucketDefaults(c.newBucketDefaults) != api.DefaultsAWS2023 {
		t.Fatalf("aws2023: %q %v", c.newBucketDefaults, err)
	}
	if _, err := parseConfig([]string{"--new-bucket-defaults", "2023"}, io.Discard, env); err == nil {
		t.Fatal("--new-bucket-defaults 2023 was accepted")
	}
}
