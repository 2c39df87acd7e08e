package metadata

import (
	"bytes"
	"reflect"
	"testing"
	"time"
)

// FuzzObjectRecord checks that decoding arbitrary bytes never panics, and
// that whatever decodes re-encodes to a record that decodes equal (and
// whose encoding is then stable).
func FuzzObjectRecord(f *testing.F) {
	// Valid records of every shape.
	for _, o := range []Object{
		{},
		sampleObject(""),
		{Size: 1, LastModified: time.Unix(0, 1).UTC(), Location: Directory},
		{UserMeta: []KV{{}, {"a", "b"}}, Checksums: []Checksum{{"CRC32", "x==", "COMPOSITE"}}, Tags: []KV{{"t", ""}}},
		{FileMtime: -1 << 63, FileInode: 1<<64 - 1, Size: 1<<63 - 1},
	} {
		b, err := o.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})                                   // empty
	f.Add([]byte{2})                                  // unknown version
	f.Add([]byte{1, 99, 3, 'x', 'y', 'z'})            // unknown field
	f.Add([]byte{1, 2, 0xff, 0xff, 0xff, 0xff, 0x0f}) // length far beyond the input
	f.Add([]byte{1, 10, 2, 5, 'a'})                   // key/value length beyond its payload
	f.Add([]byte{1, 1, 1, 0, 1, 1, 5})                // a field repeated: the last wins
	f.Add([]byte{1, 1, 2, 0x80, 0x00})                // non-minimal uvarint

	f.Fuzz(func(t *testing.T, data []byte) {
		var o1 Object
		if err := o1.UnmarshalBinary(data); err != nil {
			return
		}
		b1, err := o1.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded record %+v does not encode: %v", o1, err)
		}
		var o2 Object
		if err := o2.UnmarshalBinary(b1); err != nil {
			t.Fatalf("re-encoded record %x does not decode: %v", b1, err)
		}
		if !reflect.DeepEqual(o1, o2) {
			t.Fatalf("round trip differs:\n%+v\n%+v", o1, o2)
		}
		b2, err := o2.MarshalBinary()
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("encoding not stable: %x then %x (%v)", b1, b2, err)
		}
	})
}

// FuzzBucketRecord is FuzzObjectRecord for bucket records.
func FuzzBucketRecord(f *testing.F) {
	b, err := (&Bucket{Created: time.Unix(1, 2), Owner: "o", Region: "r"}).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte{1})
	f.Add([]byte{1, 1, 3, 0x80, 0x80, 0x01}) // time without nanoseconds
	f.Fuzz(func(t *testing.T, data []byte) {
		var b1 Bucket
		if err := b1.UnmarshalBinary(data); err != nil {
			return
		}
		enc, err := b1.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded record %+v does not encode: %v", b1, err)
		}
		var b2 Bucket
		if err := b2.UnmarshalBinary(enc); err != nil || b1 != b2 {
			t.Fatalf("round trip: %+v then %+v (%v)", b1, b2, err)
		}
	})
}
