package edge

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/pkg/hotcache"
)

// Options configure a Cache.
type Options struct {
	// Upstream is the origin's base URL (http or https); objects are
	// fetched path-style as Upstream/bucket/key, or virtual-hosted-style
	// (VirtualHost).
	Upstream *url.URL
	// VirtualHost addresses the origin virtual-hosted-style, as
	// https://bucket.<Upstream's host>/<Upstream's path>/key, for origins
	// that do not serve path-style requests (AWS S3 for new buckets,
	// many S3-compatible services behind a wildcard DNS name).
	VirtualHost bool
	// NegativeTTL is how long an origin 404 (NoSuchKey, NoSuchBucket) is
	// answered from memory without asking the origin again, unless the
	// 404 itself says no-store, private, no-cache or a shorter max-age.
	// Zero is DefaultNegativeTTL (10 s); negative turns it off.
	NegativeTTL time.Duration
	// AccessKey and SecretKey sign requests to the origin with SigV4;
	// empty means anonymous requests (public content).
	AccessKey, SecretKey string
	// Region is the origin's signing region. Default "us-east-1".
	Region string
	// Dir holds the cached files and the catalogue when the cache has one
	// disk; it is created if absent. Leave it empty when Disks is set.
	Dir string
	// MaxBytes is the byte budget of the cached objects of Dir. Objects
	// larger than half of it are relayed without being stored. With
	// Disks, defaults sets it to the sum of the disks' budgets.
	MaxBytes int64
	// Disks are the cache directories, one per disk, each with its own
	// catalogue, byte budget, failure state and probe (see disks.go).
	// An object is placed on one of them by a hash of its key, weighted
	// by their budgets. Empty: the one disk Dir with MaxBytes. With more
	// than one, a directory is not created when absent: it is a missing
	// disk, probed until it appears.
	Disks []Disk
	// SliceSize is the unit of fetching and storing. Default 4 MiB.
	SliceSize int64
	// DefaultTTL is the freshness of objects whose origin response says
	// nothing about it. Default 10 minutes.
	DefaultTTL time.Duration
	// StaleIfError bounds how long past its freshness an object may be
	// served while the origin fails, unless its Cache-Control says
	// stale-if-error itself. Default 1 hour; negative disables.
	StaleIfError time.Duration
	// NoSync skips the file sync before finished slices enter the
	// catalogue (tests; a power failure may then leave a slice recorded
	// as complete whose bytes did not reach the disk).
	NoSync bool
	// Memory, when set, keeps small hot objects in memory too (the same
	// byte-budgeted, scan-resistant cache as the origin's hot-object
	// tier): hits on them cost no file operation. Only objects up to
	// 48 KiB are answered from it (hit.go, memoryServeMax): larger ones
	// cost less as a sendfile from the page cache. Entries are keyed by
	// the cached version's file id, so a changed object is never served
	// from it.
	Memory *hotcache.Cache
	// Client makes the requests to the origin; nil uses a client with
	// keep-alive connections sized for an edge, which verifies an https://
	// origin's certificate against RootCAs.
	Client *http.Client
	// RootCAs are the CAs trusted for an https:// origin's certificate
	// when Client is nil; nil: the system's.
	RootCAs *x509.CertPool
	// Logger receives the cache's warnings (disk failures, origin errors).
	Logger zerolog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// ProbeInterval is how often a failed cache disk is tried again.
	// Default 5 seconds.
	ProbeInterval time.Duration

	// syncInterval is how often finished slices are synced and recorded
	// (see Cache.flush). Default 1 second.
	syncInterval time.Duration
	// syncAge is how long a finished slice waits before a flush syncs
	// and records it, so that the kernel has written its pages out by
	// then (see Cache.flush). Default writebackAge(); negative: at the
	// next flush. Zero with NoSync, which has nothing to wait for.
	syncAge time.Duration

	// smallObject is the size up to which the request that misses an
	// object fetches it whole itself (fill.go, defaultSmallObject).
	// Zero: the default; negative: none, every fill runs in a goroutine
	// of its own (tests of a fill's followers, with small objects).
	smallObject int64

	// fault, when set (tests), is called before each write to the cache
	// disk and fails it by returning an error.
	fault func(op string) error
	// faultAt, when set (tests), is called as fault is, with the
	// directory of the disk.
	faultAt func(dir, op string) error
}

// Disk is one cache directory and its byte budget.
type Disk struct {
	// Dir holds the disk's cached files (Dir/data) and its catalogue
	// (Dir/catalog.db).
	Dir string
	// MaxBytes is the byte budget of the objects cached in Dir; it is
	// also the disk's weight in placement.
	MaxBytes int64
}

// The default client's limits: how long the origin may take to send an
// answer's head, and how long a kept connection to it may stay idle.
const (
	originHeaderTimeout = 60 * time.Second
	originIdleTimeout   = 90 * time.Second
)

// DefaultSliceSize is the slice size when Options.SliceSize is zero.
const DefaultSliceSize = 4 << 20

func (o *Options) defaults() error {
	if o.Upstream == nil || o.Upstream.Host == "" || (o.Upstream.Scheme != "http" && o.Upstream.Scheme != "https") {
		return errors.New("edge: the upstream must be an http:// or https:// URL")
	}
	if err := o.disks(); err != nil {
		return err
	}
	if (o.AccessKey == "") != (o.SecretKey == "") {
		return errors.New("edge: the upstream access key and secret key go together")
	}
	if o.Region == "" {
		o.Region = "us-east-1"
	}
	if o.SliceSize <= 0 {
		o.SliceSize = DefaultSliceSize
	}
	if o.SliceSize < 64<<10 {
		return errors.New("edge: the slice size must be at least 64 KiB")
	}
	if o.DefaultTTL == 0 {
		o.DefaultTTL = 10 * time.Minute
	}
	if o.NegativeTTL == 0 {
		o.NegativeTTL = DefaultNegativeTTL
	}
	if o.StaleIfError == 0 {
		o.StaleIfError = time.Hour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.syncInterval <= 0 {
		o.syncInterval = time.Second
	}
	switch {
	case o.NoSync || o.syncAge < 0:
		o.syncAge = 0
	case o.syncAge == 0:
		o.syncAge = writebackAge()
	}
	if o.smallObject == 0 {
		o.smallObject = defaultSmallObject
	}
	if o.ProbeInterval <= 0 {
		o.ProbeInterval = 5 * time.Second
	}
	if o.Client == nil {
		std := &http.Transport{
			MaxIdleConns:          256,
			MaxIdleConnsPerHost:   256,
			IdleConnTimeout:       originIdleTimeout,
			ResponseHeaderTimeout: originHeaderTimeout,
			DisableCompression:    true,
			TLSClientConfig:       &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12},
			// A TLSClientConfig turns net/http's automatic HTTP/2 off;
			// an origin that offers it gets it, as without one.
			ForceAttemptHTTP2: true,
		}
		// A plain-HTTP origin's GETs and HEADs go through the edge's own
		// client (direct.go), everything else through net/http's.
		o.Client = &http.Client{Transport: newDirectTransport(std, originHeaderTimeout, originIdleTimeout, 256)}
	}
	return nil
}
