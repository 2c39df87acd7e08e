package edge

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkSliceSync measures flush's open, sync and close of one cache
// file: "dirty" syncs a file just written, as a flush did a second after
// the fill; "written-back" syncs one whose pages were written out first
// (sync_file_range, outside the timing), as the kernel's flusher has
// done by syncAge. Besides ns/op it reports cpu-ns/op, the CPU the
// process spent in the timed part (nothing else runs in it), which is
// what the wait moves out of the edge's process: the dirty sync's wall
// time is mostly the disk's.
func BenchmarkSliceSync(b *testing.B) {
	for _, size := range []int{100 << 10, 1 << 20} {
		for _, written := range []bool{false, true} {
			name := fmt.Sprintf("%dKiB/dirty", size>>10)
			if written {
				name = fmt.Sprintf("%dKiB/written-back", size>>10)
			}
			b.Run(name, func(b *testing.B) {
				dir := b.TempDir()
				data := randomBytes(1, size)
				var cpu time.Duration
				i := 0
				for b.Loop() {
					b.StopTimer()
					p := filepath.Join(dir, fmt.Sprint(i))
					i++
					if err := os.WriteFile(p, data, 0o600); err != nil {
						b.Fatal(err)
					}
					if written {
						writeOut(b, p)
					}
					b.StartTimer()
					before := processCPU(b)
					f, err := os.Open(p)
					if err == nil {
						err = f.Sync()
						f.Close()
					}
					cpu += processCPU(b) - before
					b.StopTimer()
					if err != nil {
						b.Fatal(err)
					}
					os.Remove(p)
					b.StartTimer()
				}
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// writeOut writes p's dirty pages to the disk and waits for them, as the
// kernel's flusher does, without a sync of the file.
func writeOut(b *testing.B, p string) {
	f, err := os.Open(p)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	flags := unix.SYNC_FILE_RANGE_WAIT_BEFORE | unix.SYNC_FILE_RANGE_WRITE | unix.SYNC_FILE_RANGE_WAIT_AFTER
	if err := unix.SyncFileRange(int(f.Fd()), 0, 0, flags); err != nil {
		b.Fatal(err)
	}
}

// processCPU is the process's CPU time. (RUSAGE_THREAD is no better
// here: on this benchmark's kernel it reported more CPU than wall time
// for a thread blocked in a sync.)
func processCPU(b *testing.B) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
