package object

import (
	"crypto/md5"
	"encoding/hex"
	"io"
	"os"
	"sync"

	"github.com/objectgateway/objectgateway/storage"
)

// lazyMD5 gives objects the gateway did not hash itself (files found on
// disk or changed behind its back, whose ETag is FileETag) their real MD5
// after they are first read, in the background: one worker, a bounded
// queue, requests dropped rather than queued without limit. A file that
// changes while it is hashed keeps its file-identity ETag. Reads are never
// slowed: the read only enqueues.
type lazyMD5 struct {
	l       *Layer
	jobs    chan md5Job
	mu      sync.Mutex
	pending map[md5Job]bool
	closed  bool // guarded by mu: no more jobs once the Layer closes
	done    chan struct{}
}

type md5Job struct{ bucket, key string }

// lazyMD5Queue bounds the objects waiting to be hashed.
const lazyMD5Queue = 1024

func startLazyMD5(l *Layer) *lazyMD5 {
	z := &lazyMD5{l: l, jobs: make(chan md5Job, lazyMD5Queue), pending: map[md5Job]bool{}, done: make(chan struct{})}
	go z.run()
	return z
}

// note asks for rec's MD5 if its ETag is still the file-identity one.
func (z *lazyMD5) note(bucket string, rec *Object, fi storage.FileInfo) {
	if z == nil || rec.PartsCount > 0 || rec.ETag != FileETag(fi) {
		return
	}
	j := md5Job{bucket, rec.Key}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.closed || z.pending[j] {
		return
	}
	select {
	case z.jobs <- j:
		z.pending[j] = true
	default:
	}
}

func (z *lazyMD5) run() {
	defer close(z.done)
	for j := range z.jobs {
		z.hash(j)
		z.mu.Lock()
		delete(z.pending, j)
		z.mu.Unlock()
	}
}

// stop ends the worker after the job in hand.
func (z *lazyMD5) stop() {
	if z == nil {
		return
	}
	z.mu.Lock()
	z.closed = true
	close(z.jobs)
	z.mu.Unlock()
	<-z.done
}

func (z *lazyMD5) hash(j md5Job) {
	l := z.l
	rec, err := l.ix.Object(j.bucket, j.key)
	if err != nil {
		return
	}
	f, fi, err := l.fs.Open(j.bucket, j.key, toStorage(rec.Location))
	if err != nil || f == nil {
		return
	}
	defer f.Close()
	if rec.ETag != FileETag(fi) {
		return
	}
	sum, ok := md5File(f, fi)
	if !ok {
		return
	}
	unlock, err := l.lockKey(j.bucket, j.key)
	if err != nil {
		return
	}
	defer unlock()
	_ = l.ix.UpdateObject(j.bucket, j.key, func(o *Object) error {
		if o.ETag == FileETag(fi) && o.Size == fi.Size && o.FileMtime == fi.Mtime && o.FileInode == fi.Inode {
			o.ETag = sum
		}
		return nil
	})
}

// md5File hashes an open object file that fi describes. It reports false
// when the file cannot be read or changed while it was read.
func md5File(f *os.File, fi storage.FileInfo) (string, bool) {
	h := md5.New()
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	if _, err := io.CopyBuffer(h, io.NewSectionReader(f, 0, fi.Size), *bp); err != nil {
		return "", false
	}
	st, err := f.Stat()
	if err != nil || st.Size() != fi.Size || st.ModTime().UnixNano() != fi.Mtime {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}
