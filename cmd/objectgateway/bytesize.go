package main

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag value holding a number of bytes, written as a plain
// number or with a binary (KiB, MiB, GiB) or decimal (KB, MB, GB) unit.
type byteSize int64

var byteUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1},
}

// String writes the size in the largest binary unit that divides it, as
// flag defaults are shown ("256KiB", not "262144"); Set reads it back.
func (b *byteSize) String() string {
	if b == nil || *b == 0 {
		return "0"
	}
	n := int64(*b)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// Set parses s; it rejects negative numbers and overflow.
func (b *byteSize) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

func parseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q (want bytes, e.g. 65536 or 64MiB)", s)
	}
	return n * mult, nil
}
