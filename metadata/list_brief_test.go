package metadata

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// brief is the part of an Object that ListQuery.Brief fills.
func brief(o Object) Object {
	return Object{Key: o.Key, Size: o.Size, ETag: o.ETag, LastModified: o.LastModified, Checksums: o.Checksums, Owner: o.Owner}
}

func TestListBriefMatchesFull(t *testing.T) {
	ix, err := Open(t.TempDir()+"/index.db", Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.CreateBucket(Bucket{Name: "b"}); err != nil {
		t.Fatal(err)
	}
	var objs []Object
	for i := range 50 {
		o := benchObject(fmt.Sprintf("k/%03d", i))
		switch i % 3 {
		case 0:
			o.Checksums = nil
			o.UserMeta = nil
		case 1:
			o.Checksums = append(o.Checksums, Checksum{"SHA256", "x", "COMPOSITE"})
			o.Tags = []KV{{"t", "v"}}
			o.Parts = []PartInfo{{Size: 5, Checksum: "c"}}
			o.PartsCount = 1
		}
		o.LastModified = time.Unix(int64(i), int64(i)).UTC()
		objs = append(objs, o)
	}
	if err := ix.ApplyObjects("b", objs, nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []ListQuery{{Limit: 1000}, {Limit: 7, After: "k/010"}, {Prefix: "k/0", Delimiter: "1", Limit: 20}} {
		full, err := ix.List("b", q)
		if err != nil {
			t.Fatal(err)
		}
		q.Brief = true
		br, err := ix.List("b", q)
		if err != nil {
			t.Fatal(err)
		}
		if len(full.Objects) != len(br.Objects) || full.Truncated != br.Truncated || full.Last != br.Last ||
			!reflect.DeepEqual(full.CommonPrefixes, br.CommonPrefixes) {
			t.Fatalf("%+v: brief page differs in shape", q)
		}
		for i := range full.Objects {
			if want := brief(full.Objects[i]); !reflect.DeepEqual(br.Objects[i], want) {
				t.Fatalf("%+v: object %d: brief %+v, want %+v", q, i, br.Objects[i], want)
			}
		}
	}
}

// FuzzBriefRecord checks decodeBrief against UnmarshalBinary: whenever a
// record decodes, the brief decoding succeeds and equals the listing
// fields of the full one.
func FuzzBriefRecord(f *testing.F) {
	for _, o := range []Object{{}, sampleObject(""), benchObject("k"),
		{Checksums: []Checksum{{"CRC32", "x==", "COMPOSITE"}, {"SHA1", "", ""}}, UserMeta: []KV{{"a", "b"}}}} {
		b, err := o.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{1, 11, 2, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		var full, br Object
		if err := full.UnmarshalBinary(data); err != nil {
			return
		}
		if err := decodeBrief(&br, "", data); err != nil {
			t.Fatalf("full decoding succeeds, brief fails: %v", err)
		}
		if want := brief(full); !reflect.DeepEqual(br, want) {
			t.Fatalf("brief %+v, want %+v", br, want)
		}
	})
}
