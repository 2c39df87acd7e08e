package metadata

import (
	"errors"
	"testing"
	"time"
)

func TestApplyObjectsAndUploads(t *testing.T) {
	ix := openTest(t)
	if err := ix.CreateBucket(Bucket{Name: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := ix.PutObject("b", Object{Key: "old", Size: 1}); err != nil {
		t.Fatal(err)
	}
	put := []Object{{Key: "x", Size: 1}, {Key: "y", Size: 2, UserMeta: []KV{{"z", "1"}, {"a", "2"}}}}
	if err := ix.ApplyObjects("b", put, []string{"old", "never-existed"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Object("b", "old"); !errors.Is(err, ErrNoSuchKey) {
		t.Fatalf("old: %v", err)
	}
	if o, err := ix.Object("b", "y"); err != nil || o.Size != 2 || o.UserMeta[0].Key != "a" {
		t.Fatalf("y: %+v %v", o, err)
	}
	if err := ix.ApplyObjects("nope", put, nil); !errors.Is(err, ErrNoSuchBucket) {
		t.Fatalf("missing bucket: %v", err)
	}
	if err := ix.ApplyObjects("b", []Object{{Key: ""}}, nil); err == nil {
		t.Fatal("an empty key must be refused")
	}

	if err := ix.CreateUpload("b", Upload{Key: "k", ID: "id1", Initiated: time.Unix(1, 0)}); err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateUpload("b", Upload{Key: "k2", ID: "id2", Initiated: time.Unix(2, 0)}); err != nil {
		t.Fatal(err)
	}
	ups, err := ix.Uploads()
	if err != nil || len(ups) != 2 || ups[0].ID != "id1" || ups[1].Key != "k2" || ups[0].Bucket != "b" {
		t.Fatalf("uploads %+v %v", ups, err)
	}
}
