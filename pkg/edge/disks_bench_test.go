package edge

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"
)

// discardWriter is a ResponseWriter that drops the body, forwarding
// ReadFrom as a network connection would (without the sendfile).
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header                 { return w.h }
func (w *discardWriter) WriteHeader(int)                     {}
func (w *discardWriter) Write(p []byte) (int, error)         { return len(p), nil }
func (w *discardWriter) ReadFrom(r io.Reader) (int64, error) { return io.Copy(io.Discard, r) }

// BenchmarkHit measures Serve of a 100 KiB cached object (no HTTP
// server: the cache's own work per hit), with one cache directory given
// as Dir and with three disks.
func BenchmarkHit(b *testing.B) {
	for _, disks := range []int{0, 3} {
		name := "dir"
		if disks > 0 {
			name = fmt.Sprintf("disks=%d", disks)
		}
		b.Run(name, func(b *testing.B) {
			o := &origin{objects: make(map[string]*object)}
			o.srv = httptest.NewServer(http.HandlerFunc(o.serve))
			defer o.srv.Close()
			data := randomBytes(1, 100<<10)
			o.put("b/obj", data)
			u, _ := url.Parse(o.srv.URL)
			opts := Options{Upstream: u, Dir: b.TempDir(), MaxBytes: 64 << 20, SliceSize: testSlice,
				DefaultTTL: time.Hour, NoSync: true}
			if disks > 0 {
				opts.Dir, opts.MaxBytes = "", 0
				for range disks {
					opts.Disks = append(opts.Disks, Disk{Dir: b.TempDir(), MaxBytes: 64 << 20})
				}
			}
			c, err := Open(opts)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			r := httptest.NewRequest(http.MethodGet, "/b/obj", nil)
			if err := c.Serve(&discardWriter{h: http.Header{}}, r, "b", "obj"); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := c.Serve(&discardWriter{h: http.Header{}}, r, "b", "obj"); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if s := c.Stats(); s.Hits < uint64(b.N) {
				b.Fatalf("%d hits for %d requests", s.Hits, b.N)
			}
		})
	}
}

// BenchmarkMiss measures Serve of objects that are not cached: each GET
// fetches its object from the origin (an httptest server in the same
// process), creates its file and streams it to the client while the
// fill writes it. Without syncs (NoSync): BenchmarkSliceSync measures
// those.
func BenchmarkMiss(b *testing.B) {
	for _, size := range []int{100 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			o := &origin{objects: make(map[string]*object)}
			o.srv = httptest.NewServer(http.HandlerFunc(o.serve))
			defer o.srv.Close()
			data := randomBytes(1, size)
			u, _ := url.Parse(o.srv.URL)
			c, err := Open(Options{Upstream: u, Dir: b.TempDir(), MaxBytes: 64 << 30, SliceSize: 4 << 20,
				DefaultTTL: time.Hour, NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			b.SetBytes(int64(size))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				b.StopTimer()
				key := fmt.Sprintf("obj%d", i)
				i++
				o.put("b/"+key, data)
				r := httptest.NewRequest(http.MethodGet, "/b/"+key, nil)
				b.StartTimer()
				if err := c.Serve(&discardWriter{h: http.Header{}}, r, "b", key); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if s := c.Stats(); s.Hits != 0 || s.Misses < uint64(i) {
				b.Fatalf("%d hits and %d misses for %d requests", s.Hits, s.Misses, i)
			}
		})
	}
}
