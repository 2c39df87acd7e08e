package object

import (
	"crypto/md5"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLazyMD5 replaces a file behind the gateway's back, reads it once,
// and checks that its file-identity ETag becomes the real MD5 in the
// background.
func TestLazyMD5(t *testing.T) {
	root := t.TempDir()
	l, err := Open(Options{Root: root, LazyMD5: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.CreateBucket(Bucket{Name: "lazy"}); err != nil {
		t.Fatal(err)
	}
	body := "bytes the gateway never hashed"
	// A record for the key...
	if _, err := l.PutObject(PutInput{Bucket: "lazy", Key: "f", Body: strings.NewReader("old"), Size: 3}); err != nil {
		t.Fatal(err)
	}
	// ...then the file is replaced behind the gateway's back.
	path := filepath.Join(root, "lazy", "f")
	if err := os.WriteFile(path+".tmp", []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
	first, err := l.StatObject("lazy", "f") // refreshes to a file-identity ETag
	if err != nil || !strings.HasSuffix(first.ETag, "-1") {
		t.Fatalf("first read: %+v %v", first, err)
	}
	sum := md5.Sum([]byte(body))
	want := hex.EncodeToString(sum[:])
	deadline := time.Now().Add(5 * time.Second)
	for {
		o, err := l.StatObject("lazy", "f")
		if err != nil {
			t.Fatal(err)
		}
		if o.ETag == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ETag still %s after 5 s, want the MD5 %s", o.ETag, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
