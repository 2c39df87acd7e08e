package metadata

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	berrors "go.etcd.io/bbolt/errors"
)

// The contract suite checks every rule of the key-value contract in kv.go,
// and the behaviour of bbolt that the catalogue relies on, against every
// engine in kvEngineMakers. TestKVModel then applies random operations to
// each engine and to an in-memory model and compares the two. An engine
// that registers itself in kvEngineMakers is checked by both without a
// line of its own, so that a behaviour cannot exist in one engine and not
// in the other.

// errContractAbort is returned by a test's update function to roll the
// transaction back.
var errContractAbort = errors.New("contract test: abort")

func TestKVContract(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, m kvEngineMaker)
	}{
		{"KeyOrder", contractKeyOrder},
		{"EmptyValues", contractEmptyValues},
		{"KeyKinds", contractKeyKinds},
		{"DeleteBucket", contractDeleteBucket},
		{"Cursor", contractCursor},
		{"EmptyBucket", contractEmptyBucket},
		{"LongWalk", contractLongWalk},
		{"ForEachStops", contractForEachStops},
		{"NextSequence", contractNextSequence},
		{"Snapshot", contractSnapshot},
		{"Rollback", contractRollback},
		{"Writable", contractWritable},
		{"Retry", contractRetry},
		{"SharedVisibility", contractSharedVisibility},
		{"SharedIncrements", contractSharedIncrements},
		{"SharedSequence", contractSharedSequence},
	}
	if len(kvEngineMakers) == 0 {
		t.Fatal("no engine is registered in kvEngineMakers")
	}
	for _, m := range kvEngineMakers {
		t.Run(m.name, func(t *testing.T) {
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) { tc.run(t, m) })
			}
		})
	}
}

// contractEntry is one key of a bucket as a cursor or ForEach reports it:
// a value (possibly empty) or a nested bucket (v == nil).
type contractEntry struct {
	key    string
	value  string
	bucket bool
}

func contractEntryOf(k, v []byte) contractEntry {
	return contractEntry{key: string(k), value: string(v), bucket: v == nil}
}

func (e contractEntry) String() string {
	if e.bucket {
		return contractQuote(e.key) + " (bucket)"
	}
	return contractQuote(e.key) + " = " + contractQuote(e.value)
}

// contractQuote quotes s for a failure message, shortening long keys and
// values so that a message stays readable.
func contractQuote(s string) string {
	if len(s) > 48 {
		return strconv.Quote(s[:40]) + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return strconv.Quote(s)
}

// contractShow shows a value for a failure message, telling nil from
// empty.
func contractShow(v []byte) string {
	if v == nil {
		return "nil"
	}
	return contractQuote(string(v))
}

// contractDiff describes the first difference between two listings, or
// returns "" when they are equal.
func contractDiff[T comparable](want, got []T) string {
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			return fmt.Sprintf("at %d of %d: got %v, want %v", i, len(want), got[i], want[i])
		}
	}
	switch {
	case len(got) > len(want):
		return fmt.Sprintf("got %d entries, want %d; the first extra one is %v", len(got), len(want), got[len(want)])
	case len(got) < len(want):
		return fmt.Sprintf("got %d entries, want %d; the first missing one is %v", len(got), len(want), want[len(got)])
	}
	return ""
}

// contractCollect walks c on from the key and value it is at, up to limit
// entries (all of them when limit < 0).
func contractCollect(c kvCursor, k, v []byte, limit int) []contractEntry {
	var out []contractEntry
	for k != nil && len(out) != limit {
		out = append(out, contractEntryOf(k, v))
		if len(out) == limit {
			break
		}
		k, v = c.Next()
	}
	return out
}

// contractWalk lists b with a cursor, First then Next.
func contractWalk(b kvBucket) []contractEntry {
	c := b.Cursor()
	k, v := c.First()
	return contractCollect(c, k, v, -1)
}

// contractForEach lists b with ForEach.
func contractForEach(b kvBucket) ([]contractEntry, error) {
	var out []contractEntry
	err := b.ForEach(func(k, v []byte) error {
		out = append(out, contractEntryOf(k, v))
		return nil
	})
	return out, err
}

// contractBucketNames lists b's nested buckets with ForEachBucket.
func contractBucketNames(b kvBucket) ([]string, error) {
	var out []string
	err := b.ForEachBucket(func(name []byte) error {
		out = append(out, string(name))
		return nil
	})
	return out, err
}

// contractDump lists everything under b, nested buckets and their
// contents included, one line per key in walk order; two trees are equal
// when their dumps are.
func contractDump(b kvBucket) []string {
	var out []string
	contractDumpInto(&out, b, "")
	return out
}

func contractDumpInto(out *[]string, b kvBucket, path string) {
	for _, e := range contractWalk(b) {
		name := path + "/" + strconv.Quote(e.key)
		if !e.bucket {
			*out = append(*out, name+" = "+strconv.Quote(e.value))
			continue
		}
		*out = append(*out, name+" (bucket)")
		nb := b.Bucket([]byte(e.key))
		if nb == nil {
			*out = append(*out, name+": the cursor reports a nested bucket that Bucket does not find")
			continue
		}
		contractDumpInto(out, nb, name)
	}
}

// contractUpdate runs fn in an update of e and fails the test if the
// update fails.
func contractUpdate(t *testing.T, e engine, fn func(tx kvTx) error) {
	t.Helper()
	if err := e.update(fn); err != nil {
		t.Fatalf("update: %v", err)
	}
}

// contractView runs fn in a view of e and fails the test if the view
// fails.
func contractView(t *testing.T, e engine, fn func(tx kvTx) error) {
	t.Helper()
	if err := e.view(fn); err != nil {
		t.Fatalf("view: %v", err)
	}
}

// contractTop returns the top-level bucket name, or an error when it is
// missing, for a transaction function to return.
func contractTop(tx kvTx, name string) (kvBucket, error) {
	b := tx.Bucket([]byte(name))
	if b == nil {
		return nil, fmt.Errorf("the top-level bucket %q is missing", name)
	}
	return b, nil
}

// contractDumpTop returns the dump of the top-level bucket name, read in
// a view.
func contractDumpTop(t *testing.T, e engine, name string) []string {
	t.Helper()
	var d []string
	contractView(t, e, func(tx kvTx) error {
		b, err := contractTop(tx, name)
		if err != nil {
			return err
		}
		d = contractDump(b)
		return nil
	})
	return d
}

// contractOrderedKeys returns keys that a wrong comparison would misplace
// (signed bytes, a collation, a length-first order, a terminator), in
// byte order.
func contractOrderedKeys() []string {
	return []string{
		"\x00",
		"\x00\x00",
		"\x00\x01",
		"\x01",
		" ",
		"/",
		"0",
		"A",
		"Z",
		"a",
		"a\x00",
		"a\x00\x00",
		"a\x00b",
		"a\x01",
		"a/",
		"a/\x00",
		"a/b",
		strings.Repeat("a", 1000),
		strings.Repeat("a", 999) + "b",
		"ab",
		"ab\x00",
		"b",
		"z",
		"\x7f",
		"é",
		"été",
		"日本",
		"😀",
		"\xfe",
		"\xff",
		"\xff\x00",
		"\xff\xff",
		strings.Repeat("\xff", 1000),
	}
}

// Keys come back in byte order whatever order they were put in, values
// and nested buckets alike, through cursors, ForEach, ForEachBucket and
// Get; in the transaction that put them and after it committed.
func contractKeyOrder(t *testing.T, m kvEngineMaker) {
	keys := contractOrderedKeys()
	if !slices.IsSorted(keys) {
		t.Fatal("the test's own key list is not in byte order")
	}
	nested := map[string]bool{
		"\x00": true, "a": true, "a\x00\x00": true, "a/": true, "ab": true,
		strings.Repeat("a", 1000): true, "😀": true, "\xff": true,
	}
	var want []contractEntry
	var wantBuckets []string
	for _, k := range keys {
		if nested[k] {
			want = append(want, contractEntry{key: k, bucket: true})
			wantBuckets = append(wantBuckets, k)
		} else {
			want = append(want, contractEntry{key: k, value: "v:" + k})
		}
	}
	check := func(b kvBucket, when string) {
		t.Helper()
		if d := contractDiff(want, contractWalk(b)); d != "" {
			t.Errorf("%s: cursor walk %s", when, d)
		}
		got, err := contractForEach(b)
		if err != nil {
			t.Errorf("%s: ForEach: %v", when, err)
		} else if d := contractDiff(want, got); d != "" {
			t.Errorf("%s: ForEach %s", when, d)
		}
		names, err := contractBucketNames(b)
		if err != nil {
			t.Errorf("%s: ForEachBucket: %v", when, err)
		} else if d := contractDiff(wantBuckets, names); d != "" {
			t.Errorf("%s: ForEachBucket %s", when, d)
		}
		for _, k := range keys {
			v, nb := b.Get([]byte(k)), b.Bucket([]byte(k))
			switch {
			case nested[k] && (v != nil || nb == nil):
				t.Errorf("%s: the nested bucket %s: Get = %q, Bucket = %v", when, contractQuote(k), v, nb)
			case nested[k] && string(nb.Get([]byte("in"))) != k:
				t.Errorf("%s: the nested bucket %s holds %q, want its own name", when, contractQuote(k), nb.Get([]byte("in")))
			case !nested[k] && (string(v) != "v:"+k || nb != nil):
				t.Errorf("%s: the value %s: Get = %q, Bucket = %v", when, contractQuote(k), v, nb)
			}
		}
	}
	e := m.open(t)
	contractUpdate(t, e, func(tx kvTx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("order"))
		if err != nil {
			return err
		}
		for _, i := range rand.New(rand.NewPCG(1, 2)).Perm(len(keys)) {
			k := []byte(keys[i])
			if !nested[keys[i]] {
				if err := b.Put(k, []byte("v:"+keys[i])); err != nil {
					return fmt.Errorf("Put(%s): %w", contractQuote(keys[i]), err)
				}
				continue
			}
			nb, err := b.CreateBucket(k)
			if err != nil {
				return fmt.Errorf("CreateBucket(%s): %w", contractQuote(keys[i]), err)
			}
			if err := nb.Put([]byte("in"), k); err != nil {
				return err
			}
		}
		check(b, "in the transaction")
		return nil
	})
	contractView(t, e, func(tx kvTx) error {
		b, err := contractTop(tx, "order")
		if err != nil {
			return err
		}
		check(b, "after commit")
		return nil
	})
}

// Get returns nil for an absent key and for a nested bucket's name, and a
// non-nil slice for a value, an empty one for an empty value however it
// was put (nil or []byte{}); cursors and ForEach agree.
func contractEmptyValues(t *testing.T, m kvEngineMaker) {
	big := bytes.Repeat([]byte("\x00\xffbig"), 16<<10)
	want := []contractEntry{
		{key: "big", value: string(big)},
		{key: "binary", value: "\x00\xff\x00"},
		{key: "empty", value: ""},
		{key: "nested", bucket: true},
		{key: "nil", value: ""},
		{key: "was-empty", value: "x"},
		{key: "was-full", value: ""},
	}
	check := func(b kvBucket, when string) {
		t.Helper()
		for _, w := range want {
			v := b.Get([]byte(w.key))
			if w.bucket {
				if v != nil {
					t.Errorf("%s: Get of the nested bucket's name = %q, want nil", when, v)
				}
				continue
			}
			if v == nil || string(v) != w.value {
				t.Errorf("%s: Get(%q) = %s, want %s", when, w.key, contractShow(v), contractQuote(w.value))
			}
		}
		if v := b.Get([]byte("absent")); v != nil {
			t.Errorf("%s: Get of an absent key = %s, want nil", when, contractShow(v))
		}
		if d := contractDiff(want, contractWalk(b)); d != "" {
			t.Errorf("%s: cursor walk %s", when, d)
		}
		if got, err := contractForEach(b); err != nil || contractDiff(want, got) != "" {
			t.Errorf("%s: ForEach: %v, %s", when, err, contractDiff(want, got))
		}
		if k, v := b.Cursor().Seek([]byte("em")); string(k) != "empty" || v == nil || len(v) != 0 {
			t.Errorf("%s: Seek to the empty value = %q, %s", when, k, contractShow(v))
		}
	}
	e := m.open(t)
	contractUpdate(t, e, func(tx kvTx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("values"))
		if err != nil {
			return err
		}
		for _, kv := range []struct {
			k string
			v []byte
		}{
			{"nil", nil}, {"empty", []byte{}}, {"binary", []byte("\x00\xff\x00")}, {"big", big},
			{"was-full", []byte("full")}, {"was-empty", nil},
		} {
			if err := b.Put([]byte(kv.k), kv.v); err != nil {
				return err
			}
		}
		_, err = b.CreateBucket([]byte("nested"))
		return err
	})
	contractUpdate(t, e, func(tx kvTx) error {
		b, err := contractTop(tx, "values")
		if err != nil {
			return err
		}
		if err := b.Put([]byte("was-full"), nil); err != nil {
			return err
		}
		if err := b.Put([]byte("was-empty"), []byte("x")); err != nil {
			return err
		}
		check(b, "in the transaction")
		return nil
	})
	contractView(t, e, func(tx kvTx) error {
		b, err := contractTop(tx, "values")
		if err != nil {
			return err
		}
		check(b, "after commit")
		return nil
	})
}

// A key names a value or a nested bucket, never both: a write that would
// make it both fails and changes nothing; Bucket answers an untyped nil
// for a missing bucket and for a value's key.
func contractKeyKinds(t *testing.T, m kvEngineMaker) {
	e := m.open(t)
	contractUpdate(t, e, func(tx kvTx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("kinds"))
		if err != nil {
			return err
		}
		if err := b.Put([]byte("val"), []byte("x")); err != nil {
			return err
		}
		sub, err := b.CreateBucket([]byte("sub"))
		if err != nil {
			return err
		}
		if err := sub.Put([]byte("k"), []byte("v")); err != nil {
			return err
		}
		_, err = sub.CreateBucket([]byte("deep"))
		return err
	})
	before := contractDumpTop(t, e, "kinds")

	// The catalogue returns a failed write's error from its update, which
	// rolls the transaction back; each case does the same. The errors are
	// bbolt's, whatever the engine (kv.go).
	fails := []struct {
		name string
		op   func(b kvBucket) error
		want error
	}{
		{"Put over a nested bucket", func(b kvBucket) error {
			return b.Put([]byte("sub"), []byte("y"))
		}, berrors.ErrIncompatibleValue},
		{"Put of an empty value over a nested bucket", func(b kvBucket) error {
			return b.Put([]byte("sub"), nil)
		}, berrors.ErrIncompatibleValue},
		{"CreateBucket over a value", func(b kvBucket) error {
			_, err := b.CreateBucket([]byte("val"))
			return err
		}, berrors.ErrIncompatibleValue},
		{"CreateBucket of an existing bucket", func(b kvBucket) error {
			_, err := b.CreateBucket([]byte("sub"))
			return err
		}, berrors.ErrBucketExists},
		{"CreateBucketIfNotExists over a value", func(b kvBucket) error {
			_, err := b.CreateBucketIfNotExists([]byte("val"))
			return err
		}, berrors.ErrIncompatibleValue},
		// Delete does not delete a nested bucket, and DeleteBucket deletes
		// nothing but one.
		{"Delete of a nested bucket's name", func(b kvBucket) error {
			return b.Delete([]byte("sub"))
		}, berrors.ErrIncompatibleValue},
		{"DeleteBucket of a value", func(b kvBucket) error {
			return b.DeleteBucket([]byte("val"))
		}, berrors.ErrIncompatibleValue},
		{"DeleteBucket of a missing bucket", func(b kvBucket) error {
			return b.DeleteBucket([]byte("missing"))
		}, berrors.ErrBucketNotFound},
	}
	for _, tc := range fails {
		t.Run(tc.name, func(t *testing.T) {
			var opErr error
			err := e.update(func(tx kvTx) error {
				b, err := contractTop(tx, "kinds")
				if err != nil {
					return err
				}
				opErr = tc.op(b)
				if opErr == nil {
					return errContractAbort
				}
				return opErr
			})
			switch {
			case opErr == nil:
				t.Errorf("it succeeded")
			case !errors.Is(opErr, tc.want):
				t.Errorf("it failed with %v, want %v", opErr, tc.want)
			case err != opErr:
				t.Errorf("the update returned %v, not the error its function returned (%v)", err, opErr)
			}
			if d := contractDiff(before, contractDumpTop(t, e, "kinds")); d != "" {
				t.Errorf("it changed the bucket: %s", d)
			}
		})
	}

	checkNil := func(what string, b kvBucket) {
		t.Helper()
		if b != nil {
			t.Errorf("%s = %#v (%T), want an untyped nil", what, b, b)
		}
	}
	contractUpdate(t, e, func(tx kvTx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("kinds"))
		if err != nil {
			return err
		}
		if got := b.Get([]byte("val")); string(got) != "x" {
			t.Errorf("CreateBucketIfNotExists of an existing top-level bucket: Get = %q", got)
		}
		sub, err := b.CreateBucketIfNotExists([]byte("sub"))
		if err != nil {
			return fmt.Errorf("CreateBucketIfNotExists of an existing bucket: %w", err)
		}
		if got := sub.Get([]byte("k")); string(got) != "v" || sub.Bucket([]byte("deep")) == nil {
			t.Errorf("CreateBucketIfNotExists of an existing bucket returned another: Get = %q", got)
		}
		if v := b.Get([]byte("sub")); v != nil {
			t.Errorf("Get of a nested bucket's name = %q, want nil", v)
		}
		checkNil("tx.Bucket of a missing bucket", tx.Bucket([]byte("missing")))
		checkNil("Bucket of a missing bucket", b.Bucket([]byte("missing")))
		checkNil("Bucket of a value's key", b.Bucket([]byte("val")))
		checkNil("Bucket of a nested bucket's value", sub.Bucket([]byte("k")))
		nb, err := b.CreateBucket([]byte("new"))
		if err != nil {
			return err
		}
		checkNil("Bucket in a bucket created in the transaction", nb.Bucket([]byte("x")))
		if b.Bucket([]byte("new")) == nil {
			t.Error("a bucket created in the transaction is not found in it")
		}
		// The catalogue deletes keys that may be gone already (a lease, a
		// completion) and relies on that succeeding.
		if err := b.Delete([]byte("absent")); err != nil {
			t.Errorf("Delete of an absent key: %v", err)
		}
		return nil
	})
	contractView(t, e, func(tx kvTx) error {
		checkNil("tx.Bucket of a missing bucket in a view", tx.Bucket([]byte("missing")))
		b, err := contractTop(tx, "kinds")
		if err != nil {
			return err
		}
		checkNil("Bucket of a missing bucket in a view", b.Bucket([]byte("missing")))
		checkNil("Bucket of a value's key in a view", b.Bucket([]byte("val")))
		if b.Bucket([]byte("new")) == nil {
			t.Error("a bucket created by the last update is missing")
		}
		return nil
	})
}

// contractTree is the content of a bucket written as a literal: a string
// is a value, a contractTree a nested bucket.
type contractTree map[string]any

// build writes tr into b.
func (tr contractTree) build(b kvBucket) error {
	for _, k := range slices.Sorted(maps.Keys(tr)) {
		switch v := tr[k].(type) {
		case string:
			if err := b.Put([]byte(k), []byte(v)); err != nil {
				return fmt.Errorf("Put(%s): %w", contractQuote(k), err)
			}
		case contractTree:
			nb, err := b.CreateBucket([]byte(k))
			if err != nil {
				return fmt.Errorf("CreateBucket(%s): %w", contractQuote(k), err)
			}
			if err := v.build(nb); err != nil {
				return err
			}
		}
	}
	return nil
}

// dump lists tr as contractDump lists a bucket.
func (tr contractTree) dump() []string {
	var out []string
	tr.dumpInto(&out, "")
	return out
}

func (tr contractTree) dumpInto(out *[]string, path string) {
	for _, k := range slices.Sorted(maps.Keys(tr)) {
		name := path + "/" + strconv.Quote(k)
		switch v := tr[k].(type) {
		case string:
			*out = append(*out, name+" = "+strconv.Quote(v))
		case contractTree:
			*out = append(*out, name+" (bucket)")
			v.dumpInto(out, name)
		}
	}
}

// without returns a copy of tr without the entry at path.
func (tr contractTree) without(path ...string) contractTree {
	out := contractTree{}
	for k, v := range tr {
		switch {
		case k != path[0]:
			out[k] = v
		case len(path) > 1:
			out[k] = v.(contractTree).without(path[1:]...)
		}
	}
	return out
}

// contractDeleteTree has buckets whose names extend each other's ("a",
// "a\x00", "ab"), or whose paths an engine that joins names with a
// separator or ends them with a terminator, without escaping, would
// confuse ("a" holding "x" against "a\x00x", "a\x00\x01x" and "a/"
// holding "x"); "a" is three levels deep.
func contractDeleteTree() contractTree {
	return contractTree{
		"a": contractTree{
			"v1": "a1",
			"x": contractTree{
				"v2": "ax2",
				"y":  contractTree{"v3": "axy3", "z": contractTree{}},
			},
			"w": contractTree{"v": "aw"},
		},
		"a\x00":      contractTree{"k": "a0", "x": contractTree{"v2": "a0x2"}},
		"a\x00x":     contractTree{"v2": "a0x-sibling"},
		"a\x00\x01x": contractTree{"v2": "a01x-sibling"},
		"a/":         contractTree{"x": contractTree{"v2": "a/x2"}},
		"ab":         contractTree{"k": "ab", "x": contractTree{"v2": "abx2"}},
		"a\x01":      "value",
		"aa":         "value",
		"x":          "value",
	}
}

// DeleteBucket removes a bucket and everything nested in it, and nothing
// of its siblings; a bucket created again in its place is empty.
func contractDeleteBucket(t *testing.T, m kvEngineMaker) {
	tree := contractDeleteTree()
	e := m.open(t)
	contractUpdate(t, e, func(tx kvTx) error {
		top, err := tx.CreateBucketIfNotExists([]byte("del"))
		if err != nil {
			return err
		}
		return tree.build(top)
	})
	if d := contractDiff(tree.dump(), contractDumpTop(t, e, "del")); d != "" {
		t.Fatalf("the tree as written: %s", d)
	}

	// Each case deletes one bucket and rolls back, so that each starts
	// from the whole tree; the rollback must restore all of it.
	for _, path := range [][]string{
		{"a"}, {"a\x00"}, {"a\x00x"}, {"a\x00\x01x"}, {"a/"}, {"ab"}, {"a", "x"}, {"a", "x", "y"}, {"a", "x", "y", "z"},
	} {
		t.Run(fmt.Sprintf("%q", path), func(t *testing.T) {
			want := tree.without(path...).dump()
			err := e.update(func(tx kvTx) error {
				b, err := contractTop(tx, "del")
				if err != nil {
					return err
				}
				top := b
				for _, name := range path[:len(path)-1] {
					if b = b.Bucket([]byte(name)); b == nil {
						return fmt.Errorf("the bucket %q is missing", name)
					}
				}
				last := []byte(path[len(path)-1])
				if err := b.DeleteBucket(last); err != nil {
					return err
				}
				if b.Bucket(last) != nil || b.Get(last) != nil {
					t.Errorf("the deleted bucket is still there")
				}
				if d := contractDiff(want, contractDump(top)); d != "" {
					t.Errorf("in the transaction: %s", d)
				}
				return errContractAbort
			})
			if err != errContractAbort {
				t.Fatalf("update: %v", err)
			}
			if d := contractDiff(tree.dump(), contractDumpTop(t, e, "del")); d != "" {
				t.Errorf("after the rollback: %s", d)
			}
		})
	}

	// A committed delete, then the bucket and one of its nested buckets
	// created again: nothing of the old contents comes back.
	contractUpdate(t, e, func(tx kvTx) error {
		b, err := contractTop(tx, "del")
		if err != nil {
			return err
		}
		return b.DeleteBucket([]byte("a"))
	})
	if d := contractDiff(tree.without("a").dump(), contractDumpTop(t, e, "del")); d != "" {
		t.Errorf("after commit: %s", d)
	}
	contractUpdate(t, e, func(tx kvTx) error {
		b, err := contractTop(tx, "del")
		if err != nil {
			return err
		}
		a, err := b.CreateBucket([]byte("a"))
		if err != nil {
			return err
		}
		if got := contractWalk(a); len(got) != 0 {
			t.Errorf("the bucket created again holds %v", got)
		}
		x, err := a.CreateBucket([]byte("x"))
		if err != nil {
			return err
		}
		if got := contractWalk(x); len(got) != 0 || x.Bucket([]byte("y")) != nil {
			t.Errorf("its nested bucket created again holds %v", got)
		}
		return nil
	})
	want := tree.without("a")
	want["a"] = contractTree{"x": contractTree{}}
	if d := contractDiff(want.dump(), contractDumpTop(t, e, "del")); d != "" {
		t.Errorf("after creating it again: %s", d)
	}
}

// First, Next and Seek land on values and nested buckets (v == nil) in
// byte order; Seek lands on the first key at or after its argument and
// past the last key returns nil; a cursor can be moved again after it ran
// off the end.
func contractCursor(t *testing.T, m kvEngineMaker) {
	tree := contractTree{
		"b": "1",
		"d": "",
		"f": contractTree{"in": "f"},
		"h": "4",
		"j": contractTree{},
	}
	all := []contractEntry{
		{key: "b", value: "1"}, {key: "d"}, {key: "f", bucket: true}, {key: "h", value: "4"}, {key: "j", bucket: true},
	}
	seeks := []struct {
		seek string
		want []contractEntry // the walk from where Seek lands to the end
	}{
		{"", all},
		{"\x00", all},
		{"a", all},
		{"b", all},
		{"b\x00", all[1:]},
		{"c", all[1:]},
		{"d", all[1:]},
		{"e", all[2:]},
		{"f", all[2:]},
		{"f\x00", all[3:]},
		{"i", all[4:]},
		{"j", all[4:]},
		{"j\x00", nil},
		{"z", nil},
		{"\xff\xff", nil},
	}
	check := func(b kvBucket, when string) {
		t.Helper()
		if d := contractDiff(all, contractWalk(b)); d != "" {
			t.Errorf("%s: First and Next: %s", when, d)
		}
		c := b.Cursor()
		for _, s := range seeks {
			k, v := c.Seek([]byte(s.seek))
			if d := contractDiff(s.want, contractCollect(c, k, v, -1)); d != "" {
				t.Errorf("%s: Seek(%q) and Next: %s", when, s.seek, d)
			}
			// The same cursor, run off the end, starts again.
			if k, v := c.First(); string(k) != "b" || string(v) != "1" {
				t.Errorf("%s: First after Seek(%q) = %q, %q", when, s.seek, k, v)
			}
		}
		if k, v := c.Seek([]byte("c")); string(k) != "d" || v == nil {
			t.Errorf("%s: Seek between keys = %q, %#v", when, k, v)
		}
		if k, v := c.Next(); string(k) != "f" || v != nil {
			t.Errorf("%s: Next onto a nested bucket = %q, %#v", when, k, v)
		}
		if k, v := c.Seek([]byte("zz")); k != nil || v != nil {
			t.Errorf("%s: Seek past the last key = %q, %q", when, k, v)
		}
	}
	e := m.open(t)
	contractUpdate(t, e, func(tx kvTx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("cur"))
		if err != nil {
			return err
		}
		if err := tree.build(b); err != nil {
			return err
		}
		check(b, "in the transaction")
		return nil
	})
	contractView(t, e, func(tx kvTx) error {
		b, err := contractTop(tx, "cur")
		if err != nil {
			return err
		}
		check(b, "after commit")
		return nil
	})
}

// A cursor, ForEach and ForEachBucket on an empty bucket find nothing, also
// when its neighbours (a name extending its own, a nested bucket of the
// same name elsewhere) are full, and when its keys were all deleted.
func contractEmptyBucket(t *testing.T, m kvEngineMaker) {
	tree := contractTree{
		"e":         contractTree{},
		"e\x00":     contractTree{"k": "v", "e": contractTree{"k": "v"}},
		"e\x00\x01": contractTree{"k": "v"},
		"ee":        contractTree{"k": "v"},
		"drained":   contractTree{"k1": "v", "k2": "v", "sub": contractTree{"k": "v"}},
	}
	check := func(b kvBucket, what string) {
		t.Helper()
		c := b.Cursor()
		if k, v := c.First(); k != nil || v != nil {
			t.Errorf("%s: First = %q, %q", what, k, v)
		}
		for _, s := range []string{"", "\x00", "e", "k", "\xff"} {
			if k, v := c.Seek([]byte(s)); k != nil || v != nil {
				t.Errorf("%s: Seek(%q) = %q, %q", what, s, k, v)
			}
		}
		calls := 0
		if err := b.ForEach(func(k, v []byte) error { calls++; return nil }); err != nil || calls != 0 {
			t.Errorf("%s: ForEach called fn %d times and returned %v", what, calls, err)
		}
		if err := b.ForEachBucket(func(k []byte) error { calls++; return nil }); err != nil || calls != 0 {
			t.Errorf("%s: ForEachBucket called fn %d times and returned %v", what, calls, err)
		}
	}
	e := m.open(t)
	contractUpdate(t, e, func(tx kvTx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("empty"))
		if err != nil {
			return err
		}
		if err := tree.build(b); err != nil {
			return err
		}
		check(b.Bucket([]byte("e")), "a bucket created empty, in its transaction")
		fresh, err := b.CreateBucket([]byte("fresh"))
		if err != nil {
			return err
		}
		check(fresh, "a bucket just created")
		top, err := tx.CreateBucketIfNotExists([]byte("empty-top"))
		if err != nil {
			return err
		}
		check(top, "a top-level bucket just created")
		return nil
	})
	contractUpdate(t, e, func(tx kvTx) error {
		b, err := contractTop(tx, "empty")
		if err != nil {
			return err
		}
		d := b.Bucket([]byte("drained"))
		for _, k := range []string{"k1", "k2"} {
			if err := d.Delete([]byte(k)); err != nil {
				return err
			}
		}
		if err := d.DeleteBucket([]byte("sub")); err != nil {
			return err
		}
		check(d, "a bucket drained in its transaction")
		return nil
	})
	contractView(t, e, func(tx kvTx) error {
		b, err := contractTop(tx, "empty")
		if err != nil {
			return err
		}
		for _, name := range []string{"e", "fresh", "drained"} {
			check(b.Bucket([]byte(name)), fmt.Sprintf("the bucket %q after commit", name))
		}
		top, err := contractTop(tx, "empty-top")
		if err != nil {
			return err
		}
		check(top, "a top-level bucket after commit")
		return nil
	})
}

// contractLongKeys is the number of keys of the long walks: several of
// any batch an engine is likely to fetch in.
const contractLongKeys = 5000

// Walks of thousands of keys, from First and from Seeks to many places
// (engines fetch rows in batches), return every key exactly once and in
// order; ForEach does too, and stops where its function says.
func contractLongWalk(t *testing.T, m kvEngineMaker) {
	key := func(i int) string { return fmt.Sprintf("k%05d", 2*i) }
	// Every 101st key names a nested bucket, so that batches mix them in.
	nested := func(i int) bool { return i%101 == 50 }
	want := make([]contractEntry, contractLongKeys)
	var wantBuckets []string
	for i := range want {
		if nested(i) {
			want[i] = contractEntry{key: key(i), bucket: true}
			wantBuckets = append(wantBuckets, key(i))
		} else {
			want[i] = contractEntry{key: key(i), value: "v" + key(i)}
		}
	}
	e := m.open(t)
	contractUpdate(t, e, func(tx kvTx) error {
		_, err := tx.CreateBucketIfNotExists([]byte("long"))
		return err
	})
	// The keys go in by chunks, last chunk first, in separate
	// transactions.
	const chunk = 1000
	for start := contractLongKeys - chunk; start >= 0; start -= chunk {
		contractUpdate(t, e, func(tx kvTx) error {
			b, err := contractTop(tx, "long")
			if err != nil {
				return err
			}
			for i := start; i < start+chunk; i++ {
				if !nested(i) {
					if err := b.Put([]byte(key(i)), []byte("v"+key(i))); err != nil {
						return err
					}
					continue
				}
				nb, err := b.CreateBucket([]byte(key(i)))
				if err != nil {
					return err
				}
				if err := nb.Put([]byte("in"), []byte(key(i))); err != nil {
					return err
				}
			}
			if start == 0 {
				if d := contractDiff(want, contractWalk(b)); d != "" {
					t.Errorf("in the last transaction: %s", d)
				}
			}
			return nil
		})
	}

	// Seek positions around the batch sizes an engine might use (16, 32,
	// 64, …, 1024), and a few odd ones.
	positions := []int{0, 1, 15, 16, 17, 47, 48, 49, 111, 112, 113, 999, 1000, 1023, 1024, 1025, 2047, 2048, 3001, 4095, 4998, 4999}
	contractView(t, e, func(tx kvTx) error {
		b, err := contractTop(tx, "long")
		if err != nil {
			return err
		}
		if d := contractDiff(want, contractWalk(b)); d != "" {
			t.Errorf("First and Next: %s", d)
		}
		if got, err := contractForEach(b); err != nil || contractDiff(want, got) != "" {
			t.Errorf("ForEach: %v %s", err, contractDiff(want, got))
		}
		if got, err := contractBucketNames(b); err != nil || contractDiff(wantBuckets, got) != "" {
			t.Errorf("ForEachBucket: %v %s", err, contractDiff(wantBuckets, got))
		}
		c := b.Cursor()
		for _, p := range positions {
			// At the key, just before it (an odd number sorts between two
			// keys), and just after the one before it.
			seeks := []string{key(p), fmt.Sprintf("k%05d", 2*p-1)}
			if p > 0 {
				seeks = append(seeks, key(p-1)+"\x00")
			}
			for _, s := range seeks {
				k, v := c.Seek([]byte(s))
				if d := contractDiff(want[p:], contractCollect(c, k, v, -1)); d != "" {
					t.Errorf("Seek(%q) and Next to the end: %s", s, d)
				}
			}
			// A short walk, which ends inside a batch.
			k, v := c.Seek([]byte(key(p)))
			end := min(p+40, len(want))
			if d := contractDiff(want[p:end], contractCollect(c, k, v, 40)); d != "" {
				t.Errorf("Seek(%q) and 40 Nexts: %s", key(p), d)
			}
		}
		for _, s := range []string{"k99999", "l", "\xff"} {
			if k, v := c.Seek([]byte(s)); k != nil || v != nil {
				t.Errorf("Seek(%q) past the last key = %q, %q", s, k, v)
			}
		}
		stop := errors.New("stop")
		calls := 0
		err = b.ForEach(func(k, v []byte) error {
			if string(k) != want[calls].key {
				t.Errorf("ForEach call %d: key %q, want %q", calls, k, want[calls].key)
			}
			calls++
			if calls == 3001 {
				return stop
			}
			return nil
		})
		if err != stop || calls != 3001 {
			t.Errorf("ForEach told to stop at the 3001st key returned %v after %d calls", err, calls)
		}
		return nil
	})
}

// An error from ForEach's or ForEachBucket's function stops the walk and
// is returned as it is.
func contractForEachStops(t *testing.T, m kvEngineMaker) {
	tree := contractTree{
		"a": "1", "b": contractTree{}, "c": "3", "d": "4", "e": contractTree{"x": "y"},
		"f": "6", "g": "7", "h": contractTree{}, "i": "9", "j": "10",
	}
	keys := slices.Sorted(maps.Keys(tree))
	buckets := []string{"b", "e", "h"}
	e := m.open(t)
	contractUpdate(t, e, func(tx kvTx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("stops"))
		if err != nil {
			return err
		}
		return tree.build(b)
	})
	stop := fmt.Errorf("stop: %w", errContractAbort)
	contractView(t, e, func(tx kvTx) error {
		b, err := contractTop(tx, "stops")
		if err != nil {
			return err
		}
		for _, n := range []int{1, 2, 5, len(keys)} {
			var seen []string
			err := b.ForEach(func(k, v []byte) error {
				seen = append(seen, string(k))
				if len(seen) == n {
					return stop
				}
				return nil
			})
			if err != stop || contractDiff(keys[:n], seen) != "" {
				t.Errorf("ForEach told to stop at key %d returned %v and saw %q", n, err, seen)
			}
		}
		for _, n := range []int{1, 2, len(buckets)} {
			var seen []string
			err := b.ForEachBucket(func(name []byte) error {
				seen = append(seen, string(name))
				if len(seen) == n {
					return stop
				}
				return nil
			})
			if err != stop || contractDiff(buckets[:n], seen) != "" {
				t.Errorf("ForEachBucket told to stop at bucket %d returned %v and saw %q", n, err, seen)
			}
		}
		return nil
	})
}

// NextSequence returns, for each bucket, numbers that are never 0 and
// greater than every number it returned before, within a transaction and
// across commits. (A view must not call it, so no test does.)
func contractNextSequence(t *testing.T, m kvEngineMaker) {
	e := m.open(t)
	// The buckets: top-level ones whose names extend each other's, and
	// nested ones.
	paths := [][]string{{"s"}, {"s\x00"}, {"s1"}, {"s", "n"}, {"s", "n", "m"}, {"s1", "n"}}
	last := make([]uint64, len(paths))
	for round := range 3 {
		// got is this run's numbers; they count once the update commits,
		// since a run that did not commit returned nothing for good.
		var got []uint64
		contractUpdate(t, e, func(tx kvTx) error {
			got = make([]uint64, 0, 4*len(paths))
			bs := make([]kvBucket, len(paths))
			for i, p := range paths {
				b, err := tx.CreateBucketIfNotExists([]byte(p[0]))
				if err != nil {
					return err
				}
				for _, name := range p[1:] {
					if b, err = b.CreateBucketIfNotExists([]byte(name)); err != nil {
						return err
					}
				}
				bs[i] = b
			}
			for range 4 {
				for _, b := range bs {
					n, err := b.NextSequence()
					if err != nil {
						return err
					}
					got = append(got, n)
				}
			}
			return nil
		})
		for j, n := range got {
			i := j % len(paths)
			if n == 0 || n <= last[i] {
				t.Errorf("round %d: NextSequence of %q returned %d after %d", round, paths[i], n, last[i])
			}
			last[i] = n
		}
	}
}

// contractBallast gives a bbolt file room to write into without growing:
// bbolt remaps its file when a write needs more room than the mapping
// has, and the remap waits for every open view, so an update that a view
// waits for could wait for it in turn. The ballast is written and deleted
// in the top-level bucket top; engines that map no file need none.
func contractBallast(t *testing.T, e engine, top string) {
	t.Helper()
	contractUpdate(t, e, func(tx kvTx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(top))
		if err != nil {
			return err
		}
		nb, err := b.CreateBucket([]byte("ballast"))
		if err != nil {
			return err
		}
		for i := range 128 {
			if err := nb.Put(fmt.Appendf(nil, "%03d", i), make([]byte, 4096)); err != nil {
				return err
			}
		}
		return nil
	})
	contractUpdate(t, e, func(tx kvTx) error {
		b, err := contractTop(tx, top)
		if err != nil {
			return err
		}
		return b.DeleteBucket([]byte("ballast"))
	})
}

// A view sees one snapshot: an update that commits while it is open
// (through the same handle or, for a shared engine, another) changes
// nothing it reads, and the next view sees all of the update.
func contractSnapshot(t *testing.T, m kvEngineMaker) {
	old := contractTree{"k": "old", "gone": "x", "sub": contractTree{"in": "old"}, "doomed": contractTree{"in": "x"}}
	changed := contractTree{"k": "new", "added": "y", "sub": contractTree{"in": "new"}, "newsub": contractTree{}}
	e := m.open(t)
	writers := []struct {
		name string
		e    engine
	}{{"same handle", e}}
	if m.shared != nil {
		writers = append(writers, struct {
			name string
			e    engine
		}{"second handle", m.shared(t, e)})
	}
	for i, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			top := fmt.Sprintf("snap%d", i)
			contractBallast(t, e, top)
			contractUpdate(t, e, func(tx kvTx) error {
				b, err := contractTop(tx, top)
				if err != nil {
					return err
				}
				return old.build(b)
			})
			contractView(t, e, func(tx kvTx) error {
				b, err := contractTop(tx, top)
				if err != nil {
					return err
				}
				if d := contractDiff(old.dump(), contractDump(b)); d != "" {
					t.Errorf("before the update: %s", d)
				}
				done := make(chan error)
				go func() {
					done <- w.e.update(func(tx kvTx) error {
						b, err := contractTop(tx, top)
						if err != nil {
							return err
						}
						if err := b.Put([]byte("k"), []byte("new")); err != nil {
							return err
						}
						if err := b.Put([]byte("added"), []byte("y")); err != nil {
							return err
						}
						if err := b.Delete([]byte("gone")); err != nil {
							return err
						}
						if err := b.Bucket([]byte("sub")).Put([]byte("in"), []byte("new")); err != nil {
							return err
						}
						if err := b.DeleteBucket([]byte("doomed")); err != nil {
							return err
						}
						_, err = b.CreateBucket([]byte("newsub"))
						return err
					})
				}()
				if err := <-done; err != nil {
					return fmt.Errorf("the concurrent update: %w", err)
				}
				if d := contractDiff(old.dump(), contractDump(b)); d != "" {
					t.Errorf("the view saw the update that committed while it was open: %s", d)
				}
				if v := b.Get([]byte("k")); string(v) != "old" {
					t.Errorf("Get in the view = %q, want old", v)
				}
				return nil
			})
			if d := contractDiff(changed.dump(), contractDumpTop(t, e, top)); d != "" {
				t.Errorf("the next view: %s", d)
			}
		})
	}
}

// An update whose function returns an error returns it as it is and
// leaves nothing visible: not its values, nested buckets, deletes, nor a
// top-level bucket it created.
func contractRollback(t *testing.T, m kvEngineMaker) {
	tree := contractTree{"k": "v", "gone": "x", "sub": contractTree{"in": "v", "deep": contractTree{"in": "v"}}}
	e := m.open(t)
	contractUpdate(t, e, func(tx kvTx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("rb"))
		if err != nil {
			return err
		}
		return tree.build(b)
	})
	err := e.update(func(tx kvTx) error {
		b, err := contractTop(tx, "rb")
		if err != nil {
			return err
		}
		for _, op := range []func() error{
			func() error { return b.Put([]byte("k"), []byte("changed")) },
			func() error { return b.Put([]byte("added"), nil) },
			func() error { return b.Delete([]byte("gone")) },
			func() error { return b.DeleteBucket([]byte("sub")) },
			func() error { _, err := b.CreateBucket([]byte("sub")); return err },
			func() error { return b.Bucket([]byte("sub")).Put([]byte("in"), []byte("other")) },
			func() error { _, err := b.NextSequence(); return err },
			func() error {
				nt, err := tx.CreateBucketIfNotExists([]byte("rb-new"))
				if err != nil {
					return err
				}
				return nt.Put([]byte("k"), []byte("v"))
			},
		} {
			if err := op(); err != nil {
				return err
			}
		}
		if tx.Bucket([]byte("rb-new")) == nil {
			t.Error("a top-level bucket created in the transaction is not found in it")
		}
		return errContractAbort
	})
	if err != errContractAbort {
		t.Fatalf("the update returned %v, want its function's error as it is", err)
	}
	if d := contractDiff(tree.dump(), contractDumpTop(t, e, "rb")); d != "" {
		t.Errorf("after the rollback: %s", d)
	}
	check := func(tx kvTx, when string) {
		if b := tx.Bucket([]byte("rb-new")); b != nil {
			t.Errorf("%s: the top-level bucket created by the rolled-back update exists", when)
		}
	}
	contractView(t, e, func(tx kvTx) error { check(tx, "in a view"); return nil })
	contractUpdate(t, e, func(tx kvTx) error {
		check(tx, "in the next update")
		b, err := tx.CreateBucketIfNotExists([]byte("rb-new"))
		if err != nil {
			return err
		}
		if got := contractWalk(b); len(got) != 0 {
			t.Errorf("the top-level bucket created again holds %v", got)
		}
		return nil
	})
}

// A view is not writable and refuses writes; an update is writable, and
// its writes are what the next view sees. A view returns its function's
// error.
func contractWritable(t *testing.T, m kvEngineMaker) {
	e := m.open(t)
	contractUpdate(t, e, func(tx kvTx) error {
		if !tx.Writable() {
			t.Error("an update's transaction is not writable")
		}
		b, err := tx.CreateBucketIfNotExists([]byte("w"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte("v1"))
	})
	contractUpdate(t, e, func(tx kvTx) error {
		b, err := contractTop(tx, "w")
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte("v2"))
	})
	err := e.view(func(tx kvTx) error {
		if tx.Writable() {
			t.Error("a view's transaction is writable")
		}
		b, err := contractTop(tx, "w")
		if err != nil {
			return err
		}
		if v := b.Get([]byte("k")); string(v) != "v2" {
			t.Errorf("the view after two updates reads %q, want v2", v)
		}
		if err := b.Put([]byte("k"), []byte("v3")); !errors.Is(err, berrors.ErrTxNotWritable) {
			t.Errorf("Put in a view: %v, want ErrTxNotWritable", err)
		}
		if _, err := tx.CreateBucketIfNotExists([]byte("w-new")); !errors.Is(err, berrors.ErrTxNotWritable) {
			t.Errorf("CreateBucketIfNotExists of a new top-level bucket in a view: %v, want ErrTxNotWritable", err)
		}
		return errContractAbort
	})
	if err != errContractAbort {
		t.Errorf("the view returned %v, want its function's error", err)
	}
	contractView(t, e, func(tx kvTx) error {
		if b := tx.Bucket([]byte("w-new")); b != nil {
			t.Error("a view created a top-level bucket")
		}
		b, err := contractTop(tx, "w")
		if err != nil {
			return err
		}
		if v := b.Get([]byte("k")); string(v) != "v2" {
			t.Errorf("after the refused writes the value is %q, want v2", v)
		}
		return nil
	})
}

// contractIncrement adds one to the counter in the top-level bucket top,
// and creates a nested bucket named by id: CreateBucket fails if an
// earlier run of the function, which an engine may make, left it behind.
func contractIncrement(tx kvTx, top, id string) error {
	b, err := contractTop(tx, top)
	if err != nil {
		return err
	}
	n := 0
	if v := b.Get([]byte("n")); v != nil {
		if n, err = strconv.Atoi(string(v)); err != nil {
			return err
		}
	}
	if err := b.Put([]byte("n"), strconv.AppendInt(nil, int64(n+1), 10)); err != nil {
		return err
	}
	inc, err := b.CreateBucketIfNotExists([]byte("inc"))
	if err != nil {
		return err
	}
	_, err = inc.CreateBucket([]byte(id))
	return err
}

// contractCheckCount checks that the counter of contractIncrement in top
// is want, and that as many increments left their bucket.
func contractCheckCount(t *testing.T, e engine, top string, want int) {
	t.Helper()
	contractView(t, e, func(tx kvTx) error {
		b, err := contractTop(tx, top)
		if err != nil {
			return err
		}
		if v := b.Get([]byte("n")); string(v) != strconv.Itoa(want) {
			t.Errorf("the counter is %q, want %d", v, want)
		}
		names, err := contractBucketNames(b.Bucket([]byte("inc")))
		if err != nil {
			return err
		}
		if len(names) != want {
			t.Errorf("%d increments left their bucket, want %d", len(names), want)
		}
		return nil
	})
}

// Updates that read, modify and write one counter from concurrent
// goroutines lose no increment, and a function run more than once counts
// once.
func contractRetry(t *testing.T, m kvEngineMaker) {
	e := m.open(t)
	contractUpdate(t, e, func(tx kvTx) error {
		_, err := tx.CreateBucketIfNotExists([]byte("retry"))
		return err
	})
	const goroutines, increments = 2, 50
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range increments {
				id := fmt.Sprintf("%d-%02d", g, i)
				if err := e.update(func(tx kvTx) error { return contractIncrement(tx, "retry", id) }); err != nil {
					t.Errorf("increment %s: %v", id, err)
					return
				}
			}
		})
	}
	wg.Wait()
	contractCheckCount(t, e, "retry", goroutines*increments)
}

// contractShared returns the engine and a second handle on it, or skips
// the test for an engine that one process owns.
func contractShared(t *testing.T, m kvEngineMaker) (engine, engine) {
	t.Helper()
	if m.shared == nil {
		t.Skip("the engine has no second handle: one process owns it")
	}
	e := m.open(t)
	return e, m.shared(t, e)
}

// A second handle sees what the first committed, and the other way
// round: values, nested buckets, deletes.
func contractSharedVisibility(t *testing.T, m kvEngineMaker) {
	e1, e2 := contractShared(t, m)
	contractUpdate(t, e1, func(tx kvTx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("vis"))
		if err != nil {
			return err
		}
		return contractTree{"k": "1", "sub": contractTree{"in": "1"}}.build(b)
	})
	if d := contractDiff([]string{`/"k" = "1"`, `/"sub" (bucket)`, `/"sub"/"in" = "1"`}, contractDumpTop(t, e2, "vis")); d != "" {
		t.Errorf("the second handle after the first's update: %s", d)
	}
	contractUpdate(t, e2, func(tx kvTx) error {
		b, err := contractTop(tx, "vis")
		if err != nil {
			return err
		}
		if err := b.Put([]byte("k"), []byte("2")); err != nil {
			return err
		}
		if err := b.DeleteBucket([]byte("sub")); err != nil {
			return err
		}
		_, err = tx.CreateBucketIfNotExists([]byte("vis2"))
		return err
	})
	if d := contractDiff([]string{`/"k" = "2"`}, contractDumpTop(t, e1, "vis")); d != "" {
		t.Errorf("the first handle after the second's update: %s", d)
	}
	contractView(t, e1, func(tx kvTx) error {
		if tx.Bucket([]byte("vis2")) == nil {
			t.Error("the first handle does not see the top-level bucket the second created")
		}
		return nil
	})
}

// Read-modify-write increments through both handles at once lose nothing:
// updates are serializable across processes.
func contractSharedIncrements(t *testing.T, m kvEngineMaker) {
	e1, e2 := contractShared(t, m)
	contractUpdate(t, e1, func(tx kvTx) error {
		_, err := tx.CreateBucketIfNotExists([]byte("shared"))
		return err
	})
	handles := []engine{e1, e2}
	const goroutines, increments = 4, 25
	var wg sync.WaitGroup
	for g := range goroutines {
		e := handles[g%2]
		wg.Go(func() {
			for i := range increments {
				id := fmt.Sprintf("%d-%02d", g, i)
				if err := e.update(func(tx kvTx) error { return contractIncrement(tx, "shared", id) }); err != nil {
					t.Errorf("increment %s: %v", id, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, e := range handles {
		contractCheckCount(t, e, "shared", goroutines*increments)
	}
}

// NextSequence through both handles at once never returns a number twice,
// and one handle's number is greater than every number the other's
// committed updates returned before.
func contractSharedSequence(t *testing.T, m kvEngineMaker) {
	e1, e2 := contractShared(t, m)
	contractUpdate(t, e1, func(tx kvTx) error {
		_, err := tx.CreateBucketIfNotExists([]byte("seq"))
		return err
	})
	handles := []engine{e1, e2}
	next := func(e engine) (uint64, error) {
		var n uint64
		err := e.update(func(tx kvTx) error {
			b, err := contractTop(tx, "seq")
			if err != nil {
				return err
			}
			n, err = b.NextSequence()
			return err
		})
		return n, err
	}
	const goroutines, calls = 4, 25
	got := make([][]uint64, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for range calls {
				n, err := next(handles[g%2])
				if err != nil {
					t.Errorf("NextSequence: %v", err)
					return
				}
				got[g] = append(got[g], n)
			}
		})
	}
	wg.Wait()
	seen := map[uint64]int{}
	for g, ns := range got {
		for i, n := range ns {
			if n == 0 || (i > 0 && n <= ns[i-1]) {
				t.Errorf("goroutine %d: NextSequence returned %d after %v", g, n, ns[:i])
			}
			if h, dup := seen[n]; dup {
				t.Errorf("NextSequence returned %d to goroutines %d and %d", n, h, g)
			}
			seen[n] = g
		}
	}
	var last uint64
	for i := range 10 {
		n, err := next(handles[i%2])
		if err != nil {
			t.Fatal(err)
		}
		if n <= last {
			t.Errorf("NextSequence through handle %d returned %d after %d through the other", i%2+1, n, last)
		}
		last = n
	}
}

// kvModelOps is the number of random operations TestKVModel applies for
// each seed.
const kvModelOps = 2000

// TestKVModel applies a seeded random sequence of operations to each
// engine and to an in-memory model: writes in batches of random size, one
// update each (now and then an update that fails and must leave no trace),
// and reads inside them that must agree with the model as the batch has
// changed it; after each batch the whole tree must equal the model's.
func TestKVModel(t *testing.T) {
	for _, m := range kvEngineMakers {
		t.Run(m.name, func(t *testing.T) {
			for _, seed := range []uint64{1, 2} {
				t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { kvModelRun(t, m, seed) })
			}
		})
	}
}

// kvModelBucket is the model of a bucket: its values and nested buckets.
type kvModelBucket struct {
	vals map[string]string
	kids map[string]*kvModelBucket
}

func newKVModelBucket() *kvModelBucket {
	return &kvModelBucket{vals: map[string]string{}, kids: map[string]*kvModelBucket{}}
}

func (b *kvModelBucket) clone() *kvModelBucket {
	c := &kvModelBucket{vals: maps.Clone(b.vals), kids: make(map[string]*kvModelBucket, len(b.kids))}
	for k, kid := range b.kids {
		c.kids[k] = kid.clone()
	}
	return c
}

// entries returns the bucket's keys in byte order, as a cursor reports
// them.
func (b *kvModelBucket) entries() []contractEntry {
	out := make([]contractEntry, 0, len(b.vals)+len(b.kids))
	for k, v := range b.vals {
		out = append(out, contractEntry{key: k, value: v})
	}
	for k := range b.kids {
		out = append(out, contractEntry{key: k, bucket: true})
	}
	slices.SortFunc(out, func(x, y contractEntry) int { return strings.Compare(x.key, y.key) })
	return out
}

// dump lists the model as contractDump lists a bucket.
func (b *kvModelBucket) dump() []string {
	var out []string
	b.dumpInto(&out, "")
	return out
}

func (b *kvModelBucket) dumpInto(out *[]string, path string) {
	for _, e := range b.entries() {
		name := path + "/" + strconv.Quote(e.key)
		if !e.bucket {
			*out = append(*out, name+" = "+strconv.Quote(e.value))
			continue
		}
		*out = append(*out, name+" (bucket)")
		b.kids[e.key].dumpInto(out, name)
	}
}

// paths lists the path of every bucket, this one ([]) first, in walk
// order.
func (b *kvModelBucket) paths(prefix []string, out *[][]string) {
	*out = append(*out, prefix)
	for _, k := range slices.Sorted(maps.Keys(b.kids)) {
		b.kids[k].paths(append(slices.Clip(prefix), k), out)
	}
}

// kvModelMaxDepth is the depth of the deepest buckets: the model's root
// holds buckets, which hold buckets, which hold only values.
const kvModelMaxDepth = 2

// kvModelKind is the kind of a random operation.
type kvModelKind int

const (
	kvModelPut kvModelKind = iota
	kvModelDelete
	kvModelCreate
	kvModelDeleteBucket
	kvModelGet
	kvModelSeek
	kvModelForEach
)

var kvModelKindNames = [...]string{"put", "delete", "create bucket", "delete bucket", "get", "seek", "for each"}

// kvModelOp is one random operation, drawn before its batch runs. It
// names its bucket and, when it wants an existing key, that key by
// numbers that are resolved against the model as it stands when the
// operation runs, so that a run of the batch repeated by the engine
// applies the same operations.
type kvModelOp struct {
	kind kvModelKind
	// where picks the bucket, among all of them.
	where uint64
	// which picks an existing key when existing is set; key is used
	// otherwise.
	which    uint64
	existing bool
	key      string
	val      []byte
	// fail asks for a write that must fail (a value put over a nested
	// bucket, a bucket created over an existing key); the batch ends with
	// that failure, as the catalogue's updates do.
	fail bool
	// ifNotExists makes a bucket creation CreateBucketIfNotExists; first
	// makes a seek start at First; steps is the number of Nexts after it.
	ifNotExists, first bool
	steps              int
}

func (op kvModelOp) String() string {
	return fmt.Sprintf("%s where=%d which=%d existing=%t key=%q val=%s fail=%t ifNotExists=%t first=%t steps=%d",
		kvModelKindNames[op.kind], op.where, op.which, op.existing, op.key, contractQuote(string(op.val)),
		op.fail, op.ifNotExists, op.first, op.steps)
}

// kvModelKey draws a key of 1 to 3 bytes from an alphabet small enough
// that keys collide and are prefixes of each other, with the bytes at
// both ends of the order and a separator.
func kvModelKey(r *rand.Rand) string {
	const alphabet = "\x00ab/\xff"
	k := make([]byte, 1+r.IntN(3))
	for i := range k {
		k[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(k)
}

// kvModelValue draws a value: nil and empty (both read back as empty),
// short binary ones, and now and then a longer one.
func kvModelValue(r *rand.Rand) []byte {
	switch r.IntN(8) {
	case 0:
		return nil
	case 1:
		return []byte{}
	case 2:
		v := make([]byte, 200+r.IntN(200))
		for i := range v {
			v[i] = byte(r.Uint32())
		}
		return v
	}
	v := make([]byte, 1+r.IntN(8))
	for i := range v {
		v[i] = byte(r.Uint32())
	}
	return v
}

func kvModelDraw(r *rand.Rand) kvModelOp {
	op := kvModelOp{
		where:       r.Uint64(),
		which:       r.Uint64(),
		existing:    r.IntN(2) == 0,
		key:         kvModelKey(r),
		val:         kvModelValue(r),
		fail:        r.IntN(40) == 0,
		ifNotExists: r.IntN(2) == 0,
		first:       r.IntN(5) == 0,
		steps:       r.IntN(6),
	}
	switch n := r.IntN(100); {
	case n < 32:
		op.kind = kvModelPut
	case n < 41:
		op.kind = kvModelDelete
	case n < 55:
		op.kind = kvModelCreate
	case n < 58:
		op.kind = kvModelDeleteBucket
	case n < 71:
		op.kind = kvModelGet
	case n < 88:
		op.kind = kvModelSeek
	default:
		op.kind = kvModelForEach
	}
	return op
}

// kvModelPick returns keys[which % len], or "" when there are none.
func kvModelPick(keys []string, which uint64) string {
	if len(keys) == 0 {
		return ""
	}
	return keys[which%uint64(len(keys))]
}

// kvModelApply applies op to the engine's tree under root and to the
// model. It returns the engine's error when op was a write that had to
// fail and did, and a mismatch when the engine and the model disagree.
func kvModelApply(root kvBucket, model *kvModelBucket, op kvModelOp) (opErr, mismatch error) {
	var paths [][]string
	model.paths(nil, &paths)
	path := paths[op.where%uint64(len(paths))]
	mb, b := model, root
	for _, name := range path {
		mb = mb.kids[name]
		if b = b.Bucket([]byte(name)); b == nil {
			return nil, fmt.Errorf("the bucket %q is missing", path)
		}
	}
	key := op.key
	if op.existing {
		switch op.kind {
		case kvModelPut, kvModelDelete:
			key = kvModelPick(slices.Sorted(maps.Keys(mb.vals)), op.which)
		case kvModelDeleteBucket:
		default:
			var all []string
			for _, e := range mb.entries() {
				all = append(all, e.key)
			}
			key = kvModelPick(all, op.which)
		}
		if key == "" {
			key = op.key
		}
	}
	if op.kind == kvModelDeleteBucket {
		key = kvModelPick(slices.Sorted(maps.Keys(mb.kids)), op.which)
	}
	_, isVal := mb.vals[key]
	_, isKid := mb.kids[key]
	k := []byte(key)

	switch op.kind {
	case kvModelPut:
		if op.fail {
			if k = []byte(kvModelPick(slices.Sorted(maps.Keys(mb.kids)), op.which)); len(k) == 0 {
				return nil, nil
			}
			err := b.Put(k, op.val)
			if !errors.Is(err, berrors.ErrIncompatibleValue) {
				return nil, fmt.Errorf("Put over the nested bucket %q: %v, want ErrIncompatibleValue", k, err)
			}
			return err, nil
		}
		if isKid {
			return nil, nil // Only a put asked to fail goes over a bucket.
		}
		if err := b.Put(k, op.val); err != nil {
			return nil, fmt.Errorf("Put(%q): %v", k, err)
		}
		mb.vals[key] = string(op.val)

	case kvModelDelete:
		if isKid {
			return nil, nil // Delete of a bucket's name is not the contract's.
		}
		if err := b.Delete(k); err != nil {
			return nil, fmt.Errorf("Delete(%q): %v", k, err)
		}
		delete(mb.vals, key)

	case kvModelCreate:
		if len(path) == kvModelMaxDepth {
			return nil, nil
		}
		create := b.CreateBucket
		if op.ifNotExists {
			create = b.CreateBucketIfNotExists
		}
		if op.fail {
			taken := slices.Sorted(maps.Keys(mb.vals))
			if !op.ifNotExists {
				taken = append(taken, slices.Sorted(maps.Keys(mb.kids))...)
			}
			if k = []byte(kvModelPick(taken, op.which)); len(k) == 0 {
				return nil, nil
			}
			want := berrors.ErrIncompatibleValue
			if _, isKid := mb.kids[string(k)]; isKid {
				want = berrors.ErrBucketExists
			}
			_, err := create(k)
			if !errors.Is(err, want) {
				return nil, fmt.Errorf("creating the bucket %q over an existing key (ifNotExists=%t): %v, want %v", k, op.ifNotExists, err, want)
			}
			return err, nil
		}
		if isVal || (isKid && !op.ifNotExists) {
			return nil, nil // Only a creation asked to fail goes over a key.
		}
		nb, err := create(k)
		if err != nil {
			return nil, fmt.Errorf("creating the bucket %q (ifNotExists=%t): %v", k, op.ifNotExists, err)
		}
		if !isKid {
			mb.kids[key] = newKVModelBucket()
		}
		if d := contractDiff(mb.kids[key].entries(), contractWalk(nb)); d != "" {
			return nil, fmt.Errorf("the bucket %q as created: %s", k, d)
		}

	case kvModelDeleteBucket:
		if !isKid {
			return nil, nil
		}
		if err := b.DeleteBucket(k); err != nil {
			return nil, fmt.Errorf("DeleteBucket(%q): %v", k, err)
		}
		delete(mb.kids, key)
		if b.Bucket(k) != nil {
			return nil, fmt.Errorf("the deleted bucket %q is still there", k)
		}

	case kvModelGet:
		v, nb := b.Get(k), b.Bucket(k)
		want := mb.vals[key]
		switch {
		case isVal && (v == nil || string(v) != want):
			return nil, fmt.Errorf("Get(%q) = %s, want %s", k, contractQuote(string(v)), contractQuote(want))
		case !isVal && v != nil:
			return nil, fmt.Errorf("Get(%q) = %s, want nil", k, contractQuote(string(v)))
		case isKid != (nb != nil):
			return nil, fmt.Errorf("Bucket(%q) = %v, want a bucket: %t", k, nb, isKid)
		}

	case kvModelSeek:
		all := mb.entries()
		c := b.Cursor()
		var gk, gv []byte
		at := 0
		if op.first {
			gk, gv = c.First()
		} else {
			gk, gv = c.Seek(k)
			at, _ = slices.BinarySearchFunc(all, key, func(e contractEntry, k string) int { return strings.Compare(e.key, k) })
		}
		want := all[at:min(at+1+op.steps, len(all))]
		if d := contractDiff(want, contractCollect(c, gk, gv, 1+op.steps)); d != "" {
			return nil, fmt.Errorf("Seek(%q) (first=%t) and %d Nexts: %s", k, op.first, op.steps, d)
		}

	case kvModelForEach:
		if op.first {
			got, err := contractBucketNames(b)
			if err != nil {
				return nil, fmt.Errorf("ForEachBucket: %v", err)
			}
			if d := contractDiff(slices.Sorted(maps.Keys(mb.kids)), got); d != "" {
				return nil, fmt.Errorf("ForEachBucket: %s", d)
			}
			break
		}
		got, err := contractForEach(b)
		if err != nil {
			return nil, fmt.Errorf("ForEach: %v", err)
		}
		if d := contractDiff(mb.entries(), got); d != "" {
			return nil, fmt.Errorf("ForEach: %s", d)
		}
	}
	return nil, nil
}

// errKVModelAbort is returned by a batch drawn to fail, and
// errKVModelMismatch marks a disagreement between engine and model.
var (
	errKVModelAbort    = errors.New("kv model: abort")
	errKVModelMismatch = errors.New("kv model: the engine disagrees with the model")
)

func kvModelRun(t *testing.T, m kvEngineMaker, seed uint64) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("seed %d: rerun with -run 'TestKVModel/%s/seed=%d'", seed, m.name, seed)
		}
	})
	r := rand.New(rand.NewPCG(seed, 0x6b76))
	e := m.open(t)
	contractUpdate(t, e, func(tx kvTx) error {
		_, err := tx.CreateBucketIfNotExists([]byte("model"))
		return err
	})
	model := newKVModelBucket()
	for batch, done := 0, 0; done < kvModelOps; batch++ {
		ops := make([]kvModelOp, 1+r.IntN(24))
		for i := range ops {
			ops[i] = kvModelDraw(r)
		}
		done += len(ops)
		abort := r.IntN(10) == 0

		// The engine may run the function more than once; each run starts
		// from the model as it was, and the last run's result is kept.
		var work *kvModelBucket
		var failed error // a write that had to fail and did
		err := e.update(func(tx kvTx) error {
			work, failed = model.clone(), nil
			root, err := contractTop(tx, "model")
			if err != nil {
				return fmt.Errorf("%w: %v", errKVModelMismatch, err)
			}
			for i, op := range ops {
				opErr, mismatch := kvModelApply(root, work, op)
				if mismatch != nil {
					return fmt.Errorf("%w: operation %d (%v): %v", errKVModelMismatch, i, op, mismatch)
				}
				if opErr != nil {
					failed = opErr
					return opErr
				}
			}
			if d := contractDiff(work.dump(), contractDump(root)); d != "" {
				return fmt.Errorf("%w: at the end of the batch, in its transaction: %s", errKVModelMismatch, d)
			}
			if abort {
				return errKVModelAbort
			}
			return nil
		})
		switch {
		case errors.Is(err, errKVModelMismatch):
			t.Fatalf("seed %d, batch %d: %v", seed, batch, err)
		case failed != nil:
			if err != failed {
				t.Fatalf("seed %d, batch %d: the update returned %v, not its function's error %v", seed, batch, err, failed)
			}
		case abort:
			if err != errKVModelAbort {
				t.Fatalf("seed %d, batch %d: the update returned %v, not its function's error", seed, batch, err)
			}
		case err != nil:
			t.Fatalf("seed %d, batch %d: %v", seed, batch, err)
		default:
			model = work
		}
		var got []string
		contractView(t, e, func(tx kvTx) error {
			root, err := contractTop(tx, "model")
			if err != nil {
				return err
			}
			got = contractDump(root)
			return nil
		})
		if d := contractDiff(model.dump(), got); d != "" {
			t.Fatalf("seed %d, after batch %d (failed: %v, aborted: %t): %s", seed, batch, failed, abort, d)
		}
	}
}
