package api_test

import (
	"testing"

	"github.com/objectgateway/objectgateway/pkg/hotcache"
)

// BenchmarkGetObjectHot is BenchmarkGetObjectPresigned's 1 KiB GET with the
// hot-object cache off and on: what a hit saves in the handler (the open,
// fstat, fcntl, read and close of the file, for one stat).
func BenchmarkGetObjectHot(b *testing.B) {
	for _, mode := range []string{"off", "on"} {
		b.Run(mode, func(b *testing.B) {
			var hot *hotcache.Cache
			if mode == "on" {
				var err error
				if hot, err = hotcache.New(hotcache.Options{MaxBytes: 1 << 20}); err != nil {
					b.Fatal(err)
				}
			}
			layer, srv := benchGateway(b, hot)
			benchPut(b, layer, "obj", 1024)
			benchServe(b, srv, presignedGet())
			if hot != nil && hot.Stats().Hits == 0 {
				b.Fatal("no cache hits")
			}
		})
	}
}
