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
		// Versions: a noncurrent one under Object Lock, a delete marker.
		{VersionID: VersionID(1, 2), Seq: 2, Location: Noncurrent, LockMode: "GOVERNANCE", LockUntil: time.Unix(1, 2).UTC(), LegalHold: true},
		{VersionID: VersionID(1, 3), Seq: 3, DeleteMarker: true},
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
	full, err := (&Bucket{ID: 42, Created: time.Unix(1, 2), Owner: "o", Website: "<WebsiteConfiguration/>", Tags: "k=v"}).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	versioned, err := (&Bucket{ID: 7, Versioning: VersioningEnabled, ObjectLock: true, LockMode: "COMPLIANCE", LockDays: 1, LockYears: 2}).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(versioned)
	withLifecycle, err := (&Bucket{ID: 8, Lifecycle: "<LifecycleConfiguration/>"}).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(withLifecycle)
	f.Add([]byte{1})
	f.Add([]byte{1, 1, 3, 0x80, 0x80, 0x01}) // time without nanoseconds
	f.Fuzz(func(t *testing.T, data []byte) {
		var b1 Bucket
		if err := b1.UnmarshalBinary(data); err != nil {
			return
		}
		// The ID alone, as writes read it when they fence the bucket,
		// is the full record's.
		if id, err := bucketIDOf(data); err != nil || id != b1.ID {
			t.Fatalf("bucketIDOf = %d, %v; the record's ID is %d", id, err, b1.ID)
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

// FuzzUploadRecord and FuzzPartRecord check the multipart records as
// FuzzObjectRecord checks objects: no panic on any input, and whatever
// decodes re-encodes to a record that decodes equal.
func FuzzUploadRecord(f *testing.F) {
	u, err := (&Upload{Initiated: time.Unix(1, 2), Owner: "o", ContentType: "text/plain", UserMeta: []KV{{"k", "v"}},
		Tags: []KV{{"t", "1"}}, ChecksumAlgorithm: "CRC32", ChecksumType: "COMPOSITE", WebsiteRedirect: "/elsewhere",
		ObjectOwner: "AKIDBOB", ACL: "Fuabc"}).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(u)
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, data []byte) {
		var u1 Upload
		if err := u1.UnmarshalBinary(data); err != nil {
			return
		}
		enc, err := u1.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded record %+v does not encode: %v", u1, err)
		}
		var u2 Upload
		if err := u2.UnmarshalBinary(enc); err != nil || !reflect.DeepEqual(u1, u2) {
			t.Fatalf("round trip: %+v then %+v (%v)", u1, u2, err)
		}
	})
}

func FuzzPartRecord(f *testing.F) {
	p, err := (&Part{Number: 3, Size: 5 << 20, ETag: "abc", LastModified: time.Unix(1, 2),
		Checksum: Checksum{Algorithm: "CRC32", Value: "AAAAAA=="}, FileInode: 7, InRegion: true, Offset: 10 << 20}).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(p)
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, data []byte) {
		var p1 Part
		if err := p1.UnmarshalBinary(data); err != nil {
			return
		}
		enc, err := p1.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded record %+v does not encode: %v", p1, err)
		}
		var p2 Part
		if err := p2.UnmarshalBinary(enc); err != nil || !reflect.DeepEqual(p1, p2) {
			t.Fatalf("round trip: %+v then %+v (%v)", p1, p2, err)
		}
	})
}

// FuzzWalkRecord checks the walk's in-place decoding against
// UnmarshalBinary: it never panics, it refuses nothing UnmarshalBinary
// accepts, and on every record UnmarshalBinary accepts it reads the same
// size and time and answers HasTag as a search of the decoded tags does.
func FuzzWalkRecord(f *testing.F) {
	for _, o := range []Object{
		{},
		sampleObject(""),
		{Size: 7, LastModified: time.Unix(5, 6).UTC(), Tags: []KV{{"a", "1"}, {"kind", "scratch"}, {"", ""}}},
		{Tags: []KV{{"a", "1"}, {"a", "2"}}, UserMeta: []KV{{"a", "1"}}, SSE: Encryption{Algorithm: "AES256", KeyID: "k"}},
	} {
		b, err := o.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{1, 12, 2, 5, 'k'})      // a tag whose key runs past its payload
	f.Add([]byte{1, 1, 1, 0, 1, 1, 5})   // a repeated size: the last wins
	f.Add([]byte{1, 12, 3, 1, 'k', 'v'}) // one tag k=v
	f.Fuzz(func(t *testing.T, data []byte) {
		r := WalkRecord{Key: []byte("k"), v: data}
		werr := decodeWalk(&r)
		var o Object
		if err := o.UnmarshalBinary(data); err != nil {
			if werr == nil {
				// The walk checks less; what it accepted must still be
				// safe to read.
				r.HasTag("k", "v")
			}
			return
		}
		if werr != nil {
			t.Fatalf("UnmarshalBinary accepts %x, the walk refuses it: %v", data, werr)
		}
		if r.Size != o.Size || !r.LastModified.Equal(o.LastModified) {
			t.Fatalf("walk read size %d time %v, UnmarshalBinary %d %v", r.Size, r.LastModified, o.Size, o.LastModified)
		}
		has := func(k, v string) bool {
			for _, kv := range o.Tags {
				if kv.Key == k && kv.Value == v {
					return true
				}
			}
			return false
		}
		probes := []KV{{"k", "v"}, {"", ""}}
		for _, kv := range o.Tags {
			probes = append(probes, kv, KV{kv.Key, kv.Value + "x"}, KV{kv.Key + "x", kv.Value})
		}
		for _, p := range probes {
			if got, want := r.HasTag(p.Key, p.Value), has(p.Key, p.Value); got != want {
				t.Fatalf("HasTag(%q, %q) = %v, the decoded tags say %v", p.Key, p.Value, got, want)
			}
		}
	})
}
