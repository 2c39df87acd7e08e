package object

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkCompleteMultipartUpload measures CompleteMultipartUpload alone
// (the parts are uploaded untimed) of 1 GiB and 3 GiB objects of 8 MiB
// parts, durable (fsync on), as the AWS CLI uploads them. Each run makes
// three uploads and reports the median completion time (ms/complete);
// run it with -benchtime=1x. It removes each object before the next.
func BenchmarkCompleteMultipartUpload(b *testing.B) {
	const partSize = 8 << 20
	part := bytes.Repeat([]byte("0123456789abcdef"), partSize/16)
	for _, size := range []int64{1 << 30, 3 << 30} {
		b.Run(fmt.Sprintf("%dGiB", size>>30), func(b *testing.B) {
			l, err := Open(Options{Root: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			if err := l.CreateBucket(Bucket{Name: "bkt"}); err != nil {
				b.Fatal(err)
			}
			for range b.N {
				var times []time.Duration
				for round := range 3 {
					key := fmt.Sprintf("obj-%d", round)
					u, err := l.CreateMultipartUpload(CreateUploadInput{Bucket: "bkt", Key: key})
					if err != nil {
						b.Fatal(err)
					}
					var parts []CompletePart
					for n := 1; int64(n-1)*partSize < size; n++ {
						p, err := l.UploadPart(PartInput{Bucket: "bkt", Key: key, UploadID: u.ID, Number: n, Body: bytes.NewReader(part), Size: partSize})
						if err != nil {
							b.Fatal(err)
						}
						parts = append(parts, CompletePart{Number: n, ETag: p.ETag})
					}
					start := time.Now()
					if _, err := l.CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: key, UploadID: u.ID, ExpectSize: -1, Parts: parts}); err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(start))
					if err := l.DeleteObject("bkt", key, Conditions{}); err != nil {
						b.Fatal(err)
					}
				}
				slices.Sort(times)
				b.ReportMetric(float64(times[1].Microseconds())/1000, "ms/complete")
				b.Logf("completions: %v", times)
			}
		})
	}
}
