package powercut

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// Op is a kind of call that Fail can make fail and Calls counts.
type Op string

// The kinds of call. Each counts the FUSE requests of that kind.
const (
	OpWrite  Op = "write"  // a write request (one write(2) can be several)
	OpFsync  Op = "fsync"  // fsync and fdatasync of a file or a directory
	OpRename Op = "rename" // rename, renameat2 with any flags
	OpLink   Op = "link"   // link
	OpMkdir  Op = "mkdir"  // mkdir
	OpOpen   Op = "open"   // open of a file, and create
	OpUnlink Op = "unlink" // unlink of a file (not rmdir)
)

var ops = []Op{OpWrite, OpFsync, OpRename, OpLink, OpMkdir, OpOpen, OpUnlink}

// Rule makes one call fail.
type Rule struct {
	// Op is the kind of call.
	Op Op
	// Nth is which matching call fails, counted from when the rule is
	// added: 1 is the next one. Calls before it succeed, and the rule is
	// spent once it has fired.
	Nth int
	// Errno is returned by the failing call instead of doing it, for
	// example syscall.EIO, syscall.ENOSPC or syscall.EDQUOT.
	Errno syscall.Errno
	// Path, if set, restricts the rule to calls on a path that contains
	// it: the path relative to the mount point with a leading slash
	// ("/bucket/key"); for a rename or link, either of the two paths. A
	// call on a path that does not match is not counted by the rule.
	Path string
}

type rule struct {
	Rule
	seen int
}

// faults holds the rules not yet fired and the counters of every kind.
type faults struct {
	calls map[Op]*atomic.Int64

	mu    sync.Mutex
	rules []*rule
}

func newFaults() faults {
	c := make(map[Op]*atomic.Int64, len(ops))
	for _, op := range ops {
		c[op] = new(atomic.Int64)
	}
	return faults{calls: c}
}

// Fail adds a rule. Rules of the same kind count independently; a call
// that two rules pick fails once, with the errno of the rule added first.
func (f *FS) Fail(r Rule) error {
	if f.faults.calls[r.Op] == nil {
		return fmt.Errorf("powercut: unknown op %q", r.Op)
	}
	if r.Nth < 1 {
		return fmt.Errorf("powercut: rule Nth %d is not at least 1", r.Nth)
	}
	if r.Errno == 0 {
		return fmt.Errorf("powercut: rule without an errno")
	}
	f.faults.mu.Lock()
	defer f.faults.mu.Unlock()
	f.faults.rules = append(f.faults.rules, &rule{Rule: r})
	return nil
}

// Clear drops the rules that have not fired yet, so a test whose rule
// missed can go on without it firing on a later call.
func (f *FS) Clear() {
	f.faults.mu.Lock()
	defer f.faults.mu.Unlock()
	f.faults.rules = nil
}

// Pending is the number of rules that have not fired yet.
func (f *FS) Pending() int {
	f.faults.mu.Lock()
	defer f.faults.mu.Unlock()
	return len(f.faults.rules)
}

// Calls is how many calls of kind op the mount has had, failed ones
// included, since Mount.
func (f *FS) Calls(op Op) int64 {
	c := f.faults.calls[op]
	if c == nil {
		return 0
	}
	return c.Load()
}

// check counts a call of kind op on paths and returns the errno it must
// fail with, or 0.
func (f *FS) check(op Op, paths ...string) syscall.Errno {
	f.faults.calls[op].Add(1)
	f.faults.mu.Lock()
	defer f.faults.mu.Unlock()
	var errno syscall.Errno
	kept := f.faults.rules[:0]
	for _, r := range f.faults.rules {
		if r.Op == op && matches(r.Path, paths) {
			r.seen++
			if r.seen == r.Nth && errno == 0 {
				errno = r.Errno
				continue
			}
			if r.seen == r.Nth {
				// Another rule fired on this call; this one fires
				// on the next matching call instead.
				r.seen--
			}
		}
		kept = append(kept, r)
	}
	f.faults.rules = kept
	return errno
}

func matches(sub string, paths []string) bool {
	if sub == "" {
		return true
	}
	for _, p := range paths {
		if strings.Contains(p, sub) {
			return true
		}
	}
	return false
}
