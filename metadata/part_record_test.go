package metadata

import (
	"testing"
	"time"
)

// TestPartRecordRegionRoundTrip checks that a part record keeps where its
// bytes live: a region part at offset 0 is still a region part once
// decoded (the encoder leaves zeros out), and a part in a file of its own
// is not one.
func TestPartRecordRegionRoundTrip(t *testing.T) {
	when := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, p := range []Part{
		{Size: 8 << 20, ETag: "a", LastModified: when, FileInode: 7, InRegion: true, Offset: 0},
		{Size: 4, ETag: "b", LastModified: when, FileInode: 7, InRegion: true, Offset: 7 * 8 << 20},
		{Size: 5 << 20, ETag: "c", LastModified: when, FileInode: 9},
	} {
		b, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var got Part
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if got != p {
			t.Errorf("round trip of %+v = %+v", p, got)
		}
	}
}
