package bench

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// StaticOptions configure the static-file server.
type StaticOptions struct {
	// Dir is the directory served: /b/k is the file Dir/b/k.
	Dir string
	// NoSync skips the fsync of a PUT's file. The default, false, makes a
	// PUT write a temp file, fsync it and rename it into place: the
	// ceiling a durable S3 PUT is compared with.
	NoSync bool
	// Sink, when set, makes a PUT read its body and store nothing:
	// SinkDiscard drops the bytes, SinkMD5 hashes them with MD5 on the
	// request's goroutine. They are the ceilings of put-large without a
	// disk: what loopback alone carries, and what receiving and hashing
	// the body allow.
	Sink string
	// Raw serves GET and HEAD only, on raw connections outside net/http
	// (rawStatic): the least a Go server spends on a GET of a file.
	Raw bool
}

// The sinks of StaticOptions.Sink.
const (
	SinkDiscard = "discard"
	SinkMD5     = "md5"
)

// staticServer is the raw ceiling the gateway is compared with: a minimal
// net/http file server without auth, confined to its directory by os.Root.
//
// GET and HEAD of a file go through http.ServeContent (Range, and sendfile
// from the *os.File); PUT writes a temp file beside the target, fsyncs it
// and renames it; DELETE removes a file, or a whole top-level directory
// (the benchmark's "bucket"). GET of a directory with ?list returns up to
// max-keys names of the files in it after start-after: a first line
// "truncated" or "complete", then one key per line. It is meant for
// loopback benchmarks only.
type staticServer struct {
	root *os.Root
	opts StaticOptions
}

// NewStaticHandler returns the static-file server over o.Dir and a
// function that releases it.
func NewStaticHandler(o StaticOptions) (http.Handler, func() error, error) {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, nil, err
	}
	root, err := os.OpenRoot(o.Dir)
	if err != nil {
		return nil, nil, err
	}
	s := &staticServer{root: root, opts: o}
	return s, root.Close, nil
}

// ServeStatic serves the static-file server on listen until ctx ends.
// ready, when not nil, receives the address once it accepts connections.
func ServeStatic(ctx context.Context, o StaticOptions, listen string, ready func(addr string)) error {
	h, closeRoot, err := NewStaticHandler(o)
	if err != nil {
		return err
	}
	defer closeRoot()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	if o.Raw {
		if ready != nil {
			ready(ln.Addr().String())
		}
		return serveRaw(ctx, ln, h.(*staticServer).root)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// staticPath splits a request path into the relative file path and
// whether it names a top-level directory (a bucket). It refuses empty,
// '.', '..' and hidden segments.
func staticPath(p string) (rel string, bucket bool, ok bool) {
	p = strings.TrimPrefix(p, "/")
	bucket = !strings.Contains(strings.TrimSuffix(p, "/"), "/")
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return "", false, false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg[0] == '.' {
			return "", false, false
		}
	}
	return p, bucket, true
}

func (s *staticServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rel, bucket, ok := staticPath(r.URL.Path)
	if !ok {
		http.Error(w, "bad path", http.StatusBadRequest)
		return
	}
	var err error
	switch {
	case bucket && r.Method == http.MethodPut:
		err = s.root.Mkdir(rel, 0o755)
		if errors.Is(err, fs.ErrExist) {
			err = nil
		}
	case bucket && r.Method == http.MethodDelete:
		err = s.root.RemoveAll(rel)
	case bucket && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		if _, ok := r.URL.Query()["list"]; ok {
			err = s.list(w, r, rel)
		} else {
			_, err = s.root.Stat(rel)
		}
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		err = s.get(w, r, rel)
	case r.Method == http.MethodPut:
		err = s.put(r, rel)
	case r.Method == http.MethodDelete:
		err = s.root.Remove(rel)
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		http.Error(w, "not found", http.StatusNotFound)
	default:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// errIsDir is returned by get for a directory.
var errIsDir = &fs.PathError{Op: "get", Err: fs.ErrNotExist}

func (s *staticServer) get(w http.ResponseWriter, r *http.Request, rel string) error {
	f, err := s.root.Open(rel)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return errIsDir
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, "", fi.ModTime(), f)
	return nil
}

func (s *staticServer) put(r *http.Request, rel string) error {
	if s.opts.Sink != "" {
		var dst io.Writer = io.Discard
		if s.opts.Sink == SinkMD5 {
			dst = md5.New()
		}
		buf := make([]byte, 1<<20)
		_, err := io.CopyBuffer(dst, struct{ io.Reader }{r.Body}, buf)
		return err
	}
	dir := path.Dir(rel)
	if err := s.root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := path.Join(dir, ".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r.Body)
	if err == nil && !s.opts.NoSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = s.root.Rename(tmp, rel)
	}
	if err != nil {
		s.root.Remove(tmp)
	}
	return err
}

// list answers ?list on a bucket: the files directly in bucket/prefix.
func (s *staticServer) list(w http.ResponseWriter, r *http.Request, bucket string) error {
	q := r.URL.Query()
	prefix := q.Get("prefix")
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		http.Error(w, "prefix must end in /", http.StatusBadRequest)
		return nil
	}
	max, err := strconv.Atoi(q.Get("max-keys"))
	if err != nil || max <= 0 || max > 1000 {
		max = 1000
	}
	after := q.Get("start-after")
	var names []string
	if _, ok := staticPathOK(prefix); ok || prefix == "" {
		d, err := s.root.Open(path.Join(bucket, prefix))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err == nil {
			ents, err := d.ReadDir(-1)
			d.Close()
			if err != nil {
				return err
			}
			for _, e := range ents {
				if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
					names = append(names, prefix+e.Name())
				}
			}
		}
	}
	slices.Sort(names)
	i, _ := slices.BinarySearch(names, after)
	if i < len(names) && names[i] == after {
		i++
	}
	names = names[i:]
	state := "complete"
	if len(names) > max {
		names, state = names[:max], "truncated"
	}
	var b bytes.Buffer
	b.WriteString(state)
	for _, n := range names {
		b.WriteByte('\n')
		b.WriteString(n)
	}
	w.Header().Set("Content-Type", "text/plain")
	_, err = w.Write(b.Bytes())
	return err
}

func staticPathOK(prefix string) (string, bool) {
	rel, _, ok := staticPath(prefix)
	return rel, ok
}

// parseStaticList parses the body of a static ?list answer.
func parseStaticList(data []byte) listPage {
	var p listPage
	sc := bufio.NewScanner(bytes.NewReader(data))
	first := true
	for sc.Scan() {
		if first {
			p.Truncated = sc.Text() == "truncated"
			first = false
			continue
		}
		p.Keys = append(p.Keys, sc.Text())
	}
	return p
}
