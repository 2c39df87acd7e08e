package metadata

import (
	"reflect"
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
		{Size: 5 << 20, ETag: "d", LastModified: when, FileInode: 9, Salt: []byte{0, 1, 0xff}},
	} {
		b, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var got Part
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("round trip of %+v = %+v", p, got)
		}
	}
}

// TestUploadRecordEncryptionRoundTrip checks that an upload record keeps
// the encryption its parts are written with.
func TestUploadRecordEncryptionRoundTrip(t *testing.T) {
	u := Upload{Initiated: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), Owner: "o",
		SSE: Encryption{Algorithm: "aws:kms", KeyID: "app", KeyVersion: 2, SealedKey: []byte{0, 0xff}, Context: "e30=", BucketKey: true}}
	b, err := u.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Upload
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, u) {
		t.Errorf("round trip of %+v = %+v", u, got)
	}
}
