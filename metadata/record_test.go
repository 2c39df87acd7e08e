package metadata

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestObjectRecordRoundTrip(t *testing.T) {
	for _, o := range []Object{
		{},
		sampleObject(""),
		{Size: 1 << 62, FileMtime: -1, FileInode: 1<<64 - 1, PartsCount: 10000, Location: Directory},
		{LastModified: time.Unix(minUnixSec, 1).UTC()},
		{LastModified: time.Unix(maxUnixSec, 999999999).UTC()},
		{UserMeta: []KV{{}, {"", "v"}, {"k", ""}}, Tags: []KV{{}}, Checksums: []Checksum{{}, {"CRC32", "", ""}}},
		// The version fields: a noncurrent version under Object Lock, a
		// delete marker, and the extremes of Seq.
		{VersionID: VersionID(1, 2), Seq: 2, Location: Noncurrent, LockMode: "COMPLIANCE",
			LockUntil: time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC), LegalHold: true},
		{VersionID: VersionID(1<<64-1, 1<<64-1), Seq: 1<<64 - 1, DeleteMarker: true},
		{Seq: 1, LockMode: "GOVERNANCE", LockUntil: time.Unix(maxUnixSec, 0).UTC()},
		// An encrypted object's fields, the sealed key with every byte.
		{Size: 7, SSE: Encryption{Algorithm: "aws:kms", KeyID: "app", KeyVersion: 3,
			SealedKey: []byte{0, 1, 0xfe, 0xff}, Context: "e30="}},
		// A multipart encrypted object: its part layout, a part of size 0
		// and one without a salt among them, and a bucket key.
		{Size: 12 << 20, PartsCount: 3, SSE: Encryption{Algorithm: "SSE-C", KeyID: "default", SealedKey: []byte{9}, BucketKey: true,
			Parts: []EncryptedPart{{Size: 8 << 20, Salt: []byte{1, 2, 0}}, {Size: 0, Salt: []byte{3}}, {Size: 4 << 20}}},
			Parts: []PartInfo{{Size: 8 << 20}, {Size: 0}, {Size: 4 << 20}}},
		// The object's owner and ACL (pkg/access's stored form).
		{Size: 1, Owner: "AKIDBOB", ACL: "Fuabc\nRghttp://acs.amazonaws.com/groups/global/AllUsers"},
	} {
		b, err := o.MarshalBinary()
		if err != nil {
			t.Fatalf("MarshalBinary(%+v): %v", o, err)
		}
		var got Object
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatalf("UnmarshalBinary(%x): %v", b, err)
		}
		if !reflect.DeepEqual(got, o) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, o)
		}
	}
}

// TestObjectRecordGolden pins the encoding: records already on disk must
// keep decoding, so a change here must be deliberate and compatible.
func TestObjectRecordGolden(t *testing.T) {
	o := Object{
		Size:         5,
		ETag:         "ab",
		LastModified: time.Unix(1, 2).UTC(),
		UserMeta:     []KV{{"k", "v"}},
		Checksums:    []Checksum{{"C", "x", "F"}},
		Location:     Shadow,
		FileMtime:    -1,
	}
	const want = "01" + // version
		"010105" + // Size 5
		"02026162" + // ETag "ab"
		"03020202" + // LastModified: varint(1)=02, uvarint(2)=02
		"0a03016b76" + // UserMeta k=v
		"0b050143017846" + // Checksum C, x, F
		"0d0101" + // Location Shadow
		"0e0101" // FileMtime varint(-1)=01
	b, err := o.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(b); got != want {
		t.Errorf("encoding = %s, want %s", got, want)
	}
	if b, _ := (&Object{}).MarshalBinary(); !bytes.Equal(b, []byte{recordVersion}) {
		t.Errorf("zero record = %x, want just the version byte", b)
	}
}

func TestObjectRecordSkipsUnknownFields(t *testing.T) {
	b, err := (&Object{Size: 7, ETag: "e"}).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// A later version's field (tag 99, 3 bytes) in the middle and at the end.
	mixed := append([]byte{b[0]}, 99, 3, 'x', 'y', 'z')
	mixed = append(mixed, b[1:]...)
	mixed = append(mixed, 0x80, 0x01, 0) // tag 128, empty payload
	var o Object
	if err := o.UnmarshalBinary(mixed); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(o, Object{Size: 7, ETag: "e"}) {
		t.Errorf("got %+v", o)
	}
}

func TestObjectRecordCorrupt(t *testing.T) {
	for _, tc := range []struct{ name, hex string }{
		{"empty", ""},
		{"bad version", "02"},
		{"truncated tag", "0180"},
		{"missing length", "0101"},
		{"truncated length", "010180"},
		{"length beyond input", "01020561"},
		{"huge length", "0102ffffffffffffffffff01"},
		{"size trailing bytes", "0101020500"},
		{"size empty", "010100"},
		{"size overflows int64", "01010a80808080808080808001"},
		{"location unknown", "010d0104"},
		{"delete marker flag 2", "01160102"},
		{"legal hold flag 0", "01190100"},
		{"seq overflows uint64", "01150a80808080808080808002"},
		{"lock until truncated", "011801 02"},
		{"parts count overflows", "01100580808080 08"},
		{"time nanoseconds too big", "01030600" + "8094ebdc03"},
		{"time seconds after 9999", "010307" + hex.EncodeToString(binary.AppendVarint(nil, maxUnixSec+1)) + "00"},
		{"time seconds before year 1", "010307" + hex.EncodeToString(binary.AppendVarint(nil, minUnixSec-1)) + "00"},
		{"time truncated", "010301 02"},
		{"kv length beyond payload", "010a020561"},
		{"checksum missing value length", "010b020141"},
	} {
		data, err := hex.DecodeString(strings.ReplaceAll(tc.hex, " ", ""))
		if err != nil {
			t.Fatalf("%s: bad test hex: %v", tc.name, err)
		}
		o := Object{Key: "kept", Size: 3}
		err = o.UnmarshalBinary(data)
		if !errors.Is(err, errCorrupt) {
			t.Errorf("%s: UnmarshalBinary(%x) = %v, want corrupt", tc.name, data, err)
		}
		if o.Key != "kept" || o.Size != 3 {
			t.Errorf("%s: failed decode changed the object: %+v", tc.name, o)
		}
	}
}

func TestObjectMarshalRejects(t *testing.T) {
	for _, o := range []Object{
		{Size: -1},
		{PartsCount: -1},
		{Location: Noncurrent + 1},
		{LastModified: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{LastModified: time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC)},
	} {
		if _, err := o.MarshalBinary(); err == nil {
			t.Errorf("MarshalBinary(%+v) succeeded", o)
		}
	}
}

func TestBucketRecord(t *testing.T) {
	for _, b := range []Bucket{
		{},
		{Created: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Owner: "AKIDEXAMPLE", Region: "eu-west-1"},
		{Policy: "{}", CORS: "<CORSConfiguration/>", PublicRead: true, CacheControl: "max-age=60", Tags: "env=prod&team=a%20b"},
		{ID: 7, Versioning: VersioningEnabled, ObjectLock: true, LockMode: "COMPLIANCE", LockDays: 30},
		{Versioning: VersioningSuspended, LockMode: "GOVERNANCE", LockYears: 1<<31 - 1},
		{PublicAccessBlock: PublicAccessBlockSet},
		{PublicAccessBlock: PublicAccessBlockSet | BlockPublicAcls | IgnorePublicAcls | BlockPublicPolicy | RestrictPublicBuckets},
		{SSEAlgorithm: "aws:kms", SSEKeyID: "app", SSEBucketKey: true},
		{ACL: "Fuabc\nWgx", Ownership: "BucketOwnerEnforced"},
	} {
		data, err := b.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var got Bucket
		if err := got.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		if got != b {
			t.Errorf("round trip: got %+v, want %+v", got, b)
		}
	}
	for _, data := range [][]byte{
		{1, 1, 9},
		{1, 12, 1, 0},                         // Object Lock flag 0
		{1, 14, 5, 0x80, 0x80, 0x80, 0x80, 8}, // LockDays beyond an int32
		{1, 17, 1, 2},                         // Block Public Access settings without the set bit
		{1, 17, 1, 0x21},                      // an unknown Block Public Access bit
	} {
		var b Bucket
		if err := b.UnmarshalBinary(data); !errors.Is(err, errCorrupt) {
			t.Errorf("corrupt bucket record %x: %v", data, err)
		}
	}
}

func TestSuccessor(t *testing.T) {
	for _, tc := range []struct{ in, want []byte }{
		{[]byte("a/"), []byte("a0")},
		{[]byte("a"), []byte("b")},
		{[]byte{'a', 0xff}, []byte("b")},
		{[]byte{'a', 0xfe, 0xff, 0xff}, []byte{'a', 0xff}},
		{[]byte{0xff, 0xff}, nil},
		{[]byte{}, nil},
	} {
		if got := successor(tc.in); !bytes.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("successor(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestUploadRecordAccess checks that an upload keeps the owner and ACL
// its completed object gets.
func TestUploadRecordAccess(t *testing.T) {
	u := Upload{Initiated: time.Unix(1, 0).UTC(), Owner: "AKIDALICE", ObjectOwner: "AKIDBOB", ACL: "Fuabc\nRgx"}
	data, err := u.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Upload
	if err := got.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if got.ObjectOwner != u.ObjectOwner || got.ACL != u.ACL || got.Owner != u.Owner {
		t.Fatalf("upload record read back as %+v", got)
	}
}
