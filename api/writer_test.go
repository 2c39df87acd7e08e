package api

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// readFromRecorder is a ResponseWriter that records whether ReadFrom was
// called, as net/http's connection writer does on the sendfile path.
type readFromRecorder struct {
	*httptest.ResponseRecorder
	readFrom bool
	src      io.Reader
}

func (r *readFromRecorder) ReadFrom(src io.Reader) (int64, error) {
	r.readFrom = true
	r.src = src
	return io.Copy(writerOnly{r.ResponseRecorder}, src)
}

// TestResponseWriterKeepsSendfile proves the access-log wrapper hands an
// io.CopyN from an *os.File to the underlying ReadFrom, with the file still
// visible inside the io.LimitedReader, which is what the runtime needs to
// use sendfile(2).
func TestResponseWriterKeepsSendfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	under := &readFromRecorder{ResponseRecorder: httptest.NewRecorder()}
	w := newResponseWriter(under)
	w.WriteHeader(http.StatusPartialContent)
	if _, err := f.Seek(2, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	n, err := io.CopyN(w, f, 5)
	if err != nil || n != 5 {
		t.Fatalf("CopyN = %d, %v", n, err)
	}
	if !under.readFrom {
		t.Fatal("the wrapper did not forward ReadFrom: GET would lose sendfile")
	}
	lr, ok := under.src.(*io.LimitedReader)
	if !ok {
		t.Fatalf("ReadFrom got %T, want *io.LimitedReader", under.src)
	}
	if _, ok := lr.R.(*os.File); !ok {
		t.Fatalf("the LimitedReader wraps %T, want *os.File", lr.R)
	}
	if got := under.Body.String(); got != "23456" {
		t.Fatalf("body %q", got)
	}
	if w.status != http.StatusPartialContent || w.written != 5 {
		t.Fatalf("recorded status %d written %d", w.status, w.written)
	}
}
