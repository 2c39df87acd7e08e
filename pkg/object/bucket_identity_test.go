package object

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// TestWriteNeverLandsInARecreatedBucket races every write that commits
// bytes against the deletion of its bucket and the creation of another
// bucket of the same name by another user: the write was authorized
// against the first bucket (its identity is taken when it starts), its
// bytes are staged, and it commits only after the name belongs to the
// second. It must store nothing, and the second bucket must hold exactly
// its own objects.
func TestWriteNeverLandsInARecreatedBucket(t *testing.T) {
	type setup struct {
		l  *Layer
		id uint64 // the first bucket's identity
		up string // an upload of "k" in it, with part 1 uploaded
		// etag is part 1's ETag.
		etag string
	}
	cases := []struct {
		name  string
		write func(s setup) error
	}{
		{"PutObject", func(s setup) error {
			_, err := s.l.PutObject(PutInput{Bucket: "shared", Key: "k", Body: strings.NewReader("alice"), Size: 5, Conditions: Conditions{BucketID: s.id}})
			return err
		}},
		{"CopyObject", func(s setup) error {
			_, err := s.l.CopyObject(CopyInput{SrcBucket: "src", SrcKey: "obj", DstBucket: "shared", DstKey: "k", Conditions: Conditions{BucketID: s.id}})
			return err
		}},
		{"UploadPart", func(s setup) error {
			_, err := s.l.UploadPart(PartInput{Bucket: "shared", BucketID: s.id, Key: "k", UploadID: s.up, Number: 2, Body: strings.NewReader("alice"), Size: 5})
			return err
		}},
		{"UploadPartCopy", func(s setup) error {
			_, err := s.l.UploadPartCopy(CopyPartInput{Bucket: "shared", BucketID: s.id, Key: "k", UploadID: s.up, Number: 2, SrcBucket: "src", SrcKey: "obj"})
			return err
		}},
		{"CompleteMultipartUpload", func(s setup) error {
			_, err := s.l.CompleteMultipartUpload(CompleteInput{Bucket: "shared", Key: "k", UploadID: s.up, ExpectSize: -1,
				Parts: []CompletePart{{Number: 1, ETag: s.etag}}, Conditions: Conditions{BucketID: s.id}})
			return err
		}},
		{"CreateMultipartUpload", func(s setup) error {
			_, err := s.l.CreateMultipartUpload(CreateUploadInput{Bucket: "shared", BucketID: s.id, Key: "k"})
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			l, err := Open(Options{Root: root, NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			for _, b := range []Bucket{{Name: "src"}, {Name: "shared", Owner: "alice"}} {
				if err := l.CreateBucket(b); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := l.PutObject(PutInput{Bucket: "src", Key: "obj", Body: strings.NewReader("alice"), Size: 5}); err != nil {
				t.Fatal(err)
			}
			first, _ := l.Bucket("shared")
			u, err := l.CreateMultipartUpload(CreateUploadInput{Bucket: "shared", Key: "k"})
			if err != nil {
				t.Fatal(err)
			}
			p1, err := l.UploadPart(PartInput{Bucket: "shared", Key: "k", UploadID: u.ID, Number: 1, Body: strings.NewReader("part"), Size: 4})
			if err != nil {
				t.Fatal(err)
			}

			// The write stops when its bytes are staged; meanwhile the
			// bucket is deleted and bob creates one of the same name and
			// stores "k" in it.
			reached, release := make(chan struct{}), make(chan struct{})
			var once sync.Once
			l.beforeCommit = func() {
				first := false
				once.Do(func() { first = true })
				if first {
					close(reached)
					<-release
				}
			}
			done := make(chan error, 1)
			go func() { done <- tc.write(setup{l, first.ID, u.ID, p1.ETag}) }()
			select {
			case <-reached:
			case err := <-done:
				t.Fatalf("the write ended before it committed: %v", err)
			}
			if err := l.DeleteBucket("shared"); err != nil {
				t.Fatalf("DeleteBucket: %v", err)
			}
			if err := l.CreateBucket(Bucket{Name: "shared", Owner: "bob"}); err != nil {
				t.Fatal(err)
			}
			if _, err := l.PutObject(PutInput{Bucket: "shared", Key: "k", Body: strings.NewReader("bob"), Size: 3}); err != nil {
				t.Fatal(err)
			}
			close(release)
			err = <-done
			if c := code(err); c != s3err.NoSuchBucket && c != s3err.NoSuchUpload {
				t.Fatalf("write into the deleted bucket = %v, want NoSuchBucket", err)
			}

			// Bob's bucket holds exactly bob's object and no upload.
			r, err := l.OpenObject("shared", "k")
			if err != nil {
				t.Fatal(err)
			}
			b := make([]byte, 16)
			n, _ := r.File.Read(b)
			r.Close()
			if string(b[:n]) != "bob" || r.Size != 3 {
				t.Fatalf("bob's object is %q (size %d)", b[:n], r.Size)
			}
			page, err := l.ix.ListUploads("shared", metadata.UploadQuery{Limit: 10})
			if err != nil || len(page.Uploads) != 0 {
				t.Fatalf("bob's bucket lists uploads %+v (%v)", page.Uploads, err)
			}
			var files []string
			_ = filepath.WalkDir(filepath.Join(root, "shared"), func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					files = append(files, p)
				}
				return nil
			})
			if len(files) != 1 {
				t.Fatalf("bob's bucket directory holds %v", files)
			}
		})
	}
}

// TestMetadataWritesCheckTheBucketIdentity checks the writes that change
// only index records: authorized against a bucket that was deleted and
// created again, they answer NoSuchBucket and change nothing of the new
// bucket's.
func TestMetadataWritesCheckTheBucketIdentity(t *testing.T) {
	l, _ := newLayer(t)
	old, _ := l.Bucket("bkt")
	if err := l.DeleteBucket("bkt"); err != nil {
		t.Fatal(err)
	}
	if err := l.CreateBucket(Bucket{Name: "bkt", Owner: "bob"}); err != nil {
		t.Fatal(err)
	}
	put(t, l, "k", "bob")
	stale := Conditions{BucketID: old.ID}
	for name, err := range map[string]error{
		"DeleteObject":     l.DeleteObject("bkt", "k", stale),
		"PutObjectTagging": l.PutObjectTagging("bkt", "k", nil, stale),
		"UpdateBucket":     l.UpdateBucket("bkt", old.ID, func(b *Bucket) error { b.Policy = "{}"; return nil }),
		"PutObject": func() error {
			_, err := l.PutObject(PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader("x"), Size: 1, Conditions: stale})
			return err
		}(),
		"NoBucket": func() error {
			_, err := l.PutObject(PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader("x"), Size: 1, Conditions: Conditions{BucketID: NoBucket}})
			return err
		}(),
	} {
		if code(err) != s3err.NoSuchBucket {
			t.Errorf("%s with the old bucket's identity = %v, want NoSuchBucket", name, err)
		}
	}
	if o, body := read(t, l, "k"); body != "bob" || o.Size != 3 {
		t.Fatalf("bob's object is now %q", body)
	}
	if b, _ := l.Bucket("bkt"); b.Policy != "" || b.Owner != "bob" {
		t.Fatalf("bob's bucket changed: %+v", b)
	}
}

// TestCreateBucketNeverAdoptsADirectory checks that CreateBucket refuses a
// directory that the index does not know and that holds a file (an
// operator's files, which only scan imports), and takes one without files.
func TestCreateBucketNeverAdoptsADirectory(t *testing.T) {
	l, root := newLayer(t)
	mustWrite(t, filepath.Join(root, "payroll", "2026", "salaries.csv"), "secret")
	mustMkdir(t, filepath.Join(root, "payroll-empty-tree", "sub"))
	mustMkdir(t, filepath.Join(root, "leftover"))
	for _, name := range []string{"payroll"} {
		if err := l.CreateBucket(Bucket{Name: name, Owner: "mallory"}); code(err) != s3err.BucketAlreadyExists {
			t.Errorf("CreateBucket(%s) over an operator's directory = %v, want BucketAlreadyExists", name, err)
		}
		if _, err := l.Bucket(name); err == nil {
			t.Errorf("%s became a bucket", name)
		}
	}
	if _, err := l.OpenObject("payroll", "2026/salaries.csv"); err == nil {
		t.Error("the operator's file is readable through S3")
	}
	// What a DeleteBucket interrupted by a crash leaves: nothing, or a tree
	// of empty directories. The name must not stay unusable.
	for _, name := range []string{"leftover", "payroll-empty-tree"} {
		if err := l.CreateBucket(Bucket{Name: name}); err != nil {
			t.Errorf("CreateBucket over a directory without files (%s): %v", name, err)
		}
	}
}

// TestDeleteBucketNotEmptyKeepsUploads checks that a DeleteBucket refused
// with BucketNotEmpty leaves the uploads in progress, parts included, as
// they were. The bucket holds only a file written behind the gateway's
// back, which the index does not list: the refusal comes from the
// directory, after the index found the bucket empty.
func TestDeleteBucketNotEmptyKeepsUploads(t *testing.T) {
	l, root := newLayer(t)
	mustWrite(t, filepath.Join(root, "bkt", "behind-our-back"), "data")
	u, err := l.CreateMultipartUpload(CreateUploadInput{Bucket: "bkt", Key: "mp"})
	if err != nil {
		t.Fatal(err)
	}
	part := strings.Repeat("p", 10)
	p1, err := l.UploadPart(PartInput{Bucket: "bkt", Key: "mp", UploadID: u.ID, Number: 1, Body: strings.NewReader(part), Size: int64(len(part))})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.DeleteBucket("bkt"); code(err) != s3err.BucketNotEmpty {
		t.Fatalf("DeleteBucket = %v, want BucketNotEmpty", err)
	}
	o, err := l.CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: "mp", UploadID: u.ID, ExpectSize: -1, Parts: []CompletePart{{Number: 1, ETag: p1.ETag}}})
	if err != nil {
		t.Fatalf("Complete after the refused DeleteBucket: %v", err)
	}
	if _, body := read(t, l, "mp"); body != part || o.Size != int64(len(part)) {
		t.Fatalf("completed object is %q", body)
	}
}

// TestDeleteBucketRacingPutLeavesNoDirectory races PUTs of new keys
// against DeleteBucket: whichever wins, no bucket directory is left that
// the index does not know, and no acknowledged object is lost.
func TestDeleteBucketRacingPutLeavesNoDirectory(t *testing.T) {
	root := t.TempDir()
	l, err := Open(Options{Root: root, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	for i := range 50 {
		if err := l.CreateBucket(Bucket{Name: "race"}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var putErr, delErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, putErr = l.PutObject(PutInput{Bucket: "race", Key: "dir/sub/k", Body: strings.NewReader("v"), Size: 1})
		}()
		go func() { defer wg.Done(); delErr = l.DeleteBucket("race") }()
		wg.Wait()
		_, bucketErr := l.Bucket("race")
		dirs, err := l.fs.BucketDirs()
		if err != nil {
			t.Fatal(err)
		}
		hasDir := false
		for _, d := range dirs {
			hasDir = hasDir || d == "race"
		}
		switch {
		case bucketErr == nil && !hasDir:
			t.Fatalf("round %d: bucket recorded without its directory", i)
		case bucketErr != nil && hasDir:
			t.Fatalf("round %d: directory left without a bucket (put %v, delete %v)", i, putErr, delErr)
		case putErr == nil && bucketErr != nil:
			t.Fatalf("round %d: acknowledged PUT lost with its bucket (delete %v)", i, delErr)
		}
		if bucketErr == nil {
			if err := l.DeleteObject("race", "dir/sub/k", Conditions{}); err != nil {
				t.Fatal(err)
			}
			if err := l.DeleteBucket("race"); err != nil {
				t.Fatalf("round %d: cleanup: %v", i, err)
			}
		}
	}
}

func mustWrite(t *testing.T, path, body string) {
	t.Helper()
	mustMkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
