package edge

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// maxSyncAge bounds writebackAge: however lazy the kernel's writeback is
// set to be, a finished slice is recorded within this time.
const maxSyncAge = 2 * time.Minute

// writebackAge is how long after a write the kernel's flusher threads
// have written a dirty page out by themselves: Linux's dirty_expire
// interval plus one period of its flusher (30 s and 5 s by default),
// plus a margin. A sync after that finds the file's data written and
// only confirms it (BenchmarkSliceSync, ext4, median of 5 runs of 500
// files: opening, syncing and closing a 100 KiB file just written cost
// 56 µs of CPU, against 36 µs once its data was written out; 1 MiB, 108
// µs against 46 µs), and the writing is done by the kernel's threads,
// outside the edge's process. Elsewhere (no /proc), the Linux defaults.
//
// Zero when the flusher's periodic writeback is off
// (dirty_writeback_centisecs 0): the pages would then wait for the sync
// anyway, and waiting only lengthens what a crash loses.
func writebackAge() time.Duration {
	return writebackAgeOf("/proc/sys/vm/dirty_expire_centisecs", "/proc/sys/vm/dirty_writeback_centisecs")
}

// writebackAgeOf is writebackAge from the files holding the two settings.
func writebackAgeOf(expirePath, periodPath string) time.Duration {
	expire := centisecs(expirePath, 3000)
	period := centisecs(periodPath, 500)
	if period == 0 {
		return 0
	}
	return min(expire+period+5*time.Second, maxSyncAge)
}

// centisecs reads a /proc/sys value in hundredths of a second, or def.
func centisecs(path string, def int64) time.Duration {
	n := def
	if b, err := os.ReadFile(path); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v >= 0 {
			n = v
		}
	}
	return time.Duration(n) * 10 * time.Millisecond
}
