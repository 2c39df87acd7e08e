package tlsreload

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// Options configure a Reloader.
type Options struct {
	// CertFile and KeyFile are the PEM certificate (chain, leaf first) and
	// private key. Both are required.
	CertFile, KeyFile string
	// Name tells the listener apart in log lines ("s3", "admin").
	Name string
	// Logger receives a warning for each failed reload and an info line
	// for each successful one.
	Logger zerolog.Logger
}

// Reloader holds a listener's current certificate. Its methods are safe
// for concurrent use.
type Reloader struct {
	o   Options
	cur atomic.Pointer[tls.Certificate]

	// mu serialises reloads, so that the stamps recorded match the pair
	// that was tried last.
	mu     sync.Mutex
	stamps [2]stamp

	ok, failed atomic.Uint64
}

// stamp identifies a version of a file by what stat says of its path.
type stamp struct {
	dev, ino uint64
	size     int64
	mtime    time.Time
}

// New loads the pair and returns a Reloader serving it. It fails when the
// pair does not load, since a listener without a certificate cannot start.
func New(o Options) (*Reloader, error) {
	if o.CertFile == "" || o.KeyFile == "" {
		return nil, errors.New("tlsreload: a certificate file and a key file are both required")
	}
	r := &Reloader{o: o}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stamps = r.statPair()
	c, err := load(o.CertFile, o.KeyFile)
	if err != nil {
		return nil, err
	}
	r.cur.Store(c)
	return r, nil
}

// Config returns the listener's TLS configuration: TLS 1.2 at least, Go's
// default cipher suites, the current certificate at each handshake, and
// HTTP/1.1 only. HTTP/2 is left off because the gateway's GET path is
// built for HTTP/1.1 (docs/security.md).
func (r *Reloader) Config() *tls.Config {
	return &tls.Config{
		MinVersion:     tls.VersionTLS12,
		NextProtos:     []string{"http/1.1"},
		GetCertificate: r.GetCertificate,
	}
}

// GetCertificate returns the certificate in use, for tls.Config.
func (r *Reloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return r.cur.Load(), nil
}

// Name is Options.Name.
func (r *Reloader) Name() string { return r.o.Name }

// Certificate returns the parsed leaf of the certificate in use.
func (r *Reloader) Certificate() *x509.Certificate { return r.cur.Load().Leaf }

// Reload reads the pair again and makes it the certificate in use. On
// failure the certificate in use is kept, the reason is logged as a
// warning and returned.
func (r *Reloader) Reload() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reloadLocked(r.statPair())
}

// Poll reloads the pair when either file's stamp differs from the one seen
// at the last load or reload, and reports whether it tried. A pair that
// fails is not tried again until a file changes again.
func (r *Reloader) Poll() (tried bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.statPair()
	if st == r.stamps {
		return false, nil
	}
	return true, r.reloadLocked(st)
}

// Reloads returns how many reloads succeeded and failed so far.
func (r *Reloader) Reloads() (ok, failed uint64) { return r.ok.Load(), r.failed.Load() }

// reloadLocked loads the pair whose stamps were taken just before, so that
// a file replaced during the load shows as a change at the next poll.
func (r *Reloader) reloadLocked(st [2]stamp) error {
	r.stamps = st
	c, err := load(r.o.CertFile, r.o.KeyFile)
	if err != nil {
		r.failed.Add(1)
		old := r.cur.Load().Leaf
		r.o.Logger.Warn().Err(err).Str("listener", r.o.Name).Str("cert_file", r.o.CertFile).
			Str("serial", old.SerialNumber.String()).Msg("TLS certificate reload failed: keeping the certificate in use")
		return err
	}
	r.cur.Store(c)
	r.ok.Add(1)
	r.o.Logger.Info().Str("listener", r.o.Name).Str("cert_file", r.o.CertFile).Str("serial", c.Leaf.SerialNumber.String()).
		Time("not_after", c.Leaf.NotAfter).Msg("TLS certificate reloaded")
	return nil
}

func (r *Reloader) statPair() [2]stamp {
	return [2]stamp{statPath(r.o.CertFile), statPath(r.o.KeyFile)}
}

// statPath stamps path, following symlinks; a path that cannot be stat'ed
// has the zero stamp, so that its reappearance is a change.
func statPath(path string) stamp {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}
	}
	s := stamp{size: fi.Size(), mtime: fi.ModTime()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.dev, s.ino = uint64(sys.Dev), sys.Ino
	}
	return s
}

// load reads and checks a pair: the key must match the certificate and the
// leaf must parse.
func load(certFile, keyFile string) (*tls.Certificate, error) {
	c, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("tlsreload: %s and %s: %w", certFile, keyFile, err)
	}
	if c.Leaf == nil {
		if c.Leaf, err = x509.ParseCertificate(c.Certificate[0]); err != nil {
			return nil, fmt.Errorf("tlsreload: %s: %w", certFile, err)
		}
	}
	return &c, nil
}
