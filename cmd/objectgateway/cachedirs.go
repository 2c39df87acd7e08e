package main

import (
	"errors"
	"fmt"
	"strings"
)

// cacheDir is one --cache-dir: a directory of the edge cache and its byte
// budget (0: --cache-size).
type cacheDir struct {
	dir  string
	size int64
}

// cacheDirs is the repeatable --cache-dir flag: DIR or DIR:SIZE, one disk
// each; a value may also list several separated by commas (as
// OBJECTGATEWAY_CACHE_DIR must, being one value).
type cacheDirs []cacheDir

func (c *cacheDirs) String() string {
	if c == nil {
		return ""
	}
	parts := make([]string, len(*c))
	for i, d := range *c {
		parts[i] = d.dir
		if d.size > 0 {
			b := byteSize(d.size)
			parts[i] += ":" + b.String()
		}
	}
	return strings.Join(parts, ",")
}

// Set adds the directories of s. A size after the last colon is the
// directory's budget; a colon followed by anything but a size is refused
// rather than taken as part of the path.
func (c *cacheDirs) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return errors.New("empty cache directory")
		}
		d := cacheDir{dir: v}
		if i := strings.LastIndexByte(v, ':'); i >= 0 {
			n, err := parseByteSize(v[i+1:])
			if err != nil || n <= 0 {
				return fmt.Errorf("%q: the size after the colon must be a positive size such as 200GiB", v)
			}
			d.dir, d.size = v[:i], n
			if d.dir == "" {
				return fmt.Errorf("%q: no directory before the size", v)
			}
		}
		*c = append(*c, d)
	}
	return nil
}
