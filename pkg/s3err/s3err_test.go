package s3err

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"syscall"
	"testing"
)

func TestTableComplete(t *testing.T) {
	seen := map[string]Code{}
	for c := Code(0); c < numCodes; c++ {
		r := table[c]
		if r.name == "" || r.status == 0 || r.message == "" {
			t.Errorf("code %d has an incomplete row: %+v", c, r)
		}
		if http.StatusText(r.status) == "" {
			t.Errorf("%s: status %d is not an HTTP status", r.name, r.status)
		}
		if prev, dup := seen[r.name+fmt.Sprint(r.status)+r.message]; dup {
			t.Errorf("codes %d and %d have the same row %q", prev, c, r.name)
		}
		seen[r.name+fmt.Sprint(r.status)+r.message] = c
	}
	if Code(0).String() != "InternalError" || Code(-1).String() != "InternalError" || numCodes.String() != "InternalError" {
		t.Fatal("out-of-range and zero codes must be InternalError")
	}
}

func TestFromOS(t *testing.T) {
	cases := []struct {
		err  error
		want Code
	}{
		{&fs.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}, InsufficientStorage},
		{&fs.PathError{Op: "write", Path: "x", Err: syscall.EDQUOT}, InsufficientStorage},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.EROFS}, ReadOnlyStorage},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.ENAMETOOLONG}, KeyTooLongError},
		{fmt.Errorf("copy: %w", io.ErrUnexpectedEOF), IncompleteBody},
		{fmt.Errorf("wrapped: %w", New(NoSuchKey)), NoSuchKey},
		{errors.New("mystery"), InternalError},
	}
	for _, c := range cases {
		if got := FromOS(c.err); got != c.want {
			t.Errorf("FromOS(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}

func TestAsAndIs(t *testing.T) {
	err := fmt.Errorf("ctx: %w", Newf(NoSuchBucket, "bucket %q", "b"))
	if !errors.Is(err, New(NoSuchBucket)) || errors.Is(err, New(NoSuchKey)) {
		t.Fatal("errors.Is must compare codes")
	}
	if e := As(err); e.Code != NoSuchBucket || e.Text() != `bucket "b"` {
		t.Fatalf("As = %+v", e)
	}
	if As(nil) != nil {
		t.Fatal("As(nil) must be nil")
	}
	if e := As(errors.New("x")); e.Code != InternalError || e.Text() != InternalError.Message() {
		t.Fatalf("unknown errors must be InternalError, got %+v", e)
	}
}

func TestLookup(t *testing.T) {
	for c := Code(0); c < numCodes; c++ {
		got, ok := Lookup(c.String())
		if !ok || got.String() != c.String() || got.Status() != c.Status() && c != ReadOnlyStorage {
			t.Errorf("Lookup(%q) = %v, %v", c.String(), got, ok)
		}
	}
	if _, ok := Lookup("NoSuchThing"); ok {
		t.Error("Lookup of an unknown name succeeded")
	}
}
