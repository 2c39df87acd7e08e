package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/hotcache"
)

// config is the serve command's configuration.
type config struct {
	root string
	// index is the PostgreSQL catalogue's DSN ("": bbolt in the root's
	// state directory) and indexConns its connection bound
	// (object.Options.Index, IndexConns); recordCache is
	// object.Options.RecordCache.
	index       string
	indexConns  int
	recordCache int
	listen      string
	region      string
	domain      string
	logLevel    string
	logFormat   string
	fsync       bool
	// sigv2 accepts Signature Version 2 besides Version 4
	// (api.Options.SigV2).
	sigv2 bool
	// newBucketDefaults is "legacy" or "aws2023"
	// (api.Options.NewBucketDefaults).
	newBucketDefaults string
	// multipartExpiry is how long an unfinished multipart upload is kept
	// when no AbortIncompleteMultipartUpload rule of its bucket matches it.
	multipartExpiry time.Duration
	// lifecycleDay is the length of a lifecycle rule's day and
	// lifecycleInterval how often the lifecycle worker starts a pass;
	// tests shorten both (pkg/expire).
	lifecycleDay      time.Duration
	lifecycleInterval time.Duration
	adminListen       string
	pprof             bool
	// websiteListen is the website endpoint's address ("": off) and
	// websiteDomain the base domain of its hosts (website.go).
	websiteListen string
	websiteDomain string
	// watch keeps listings in step with out-of-band writes via inotify.
	watch   bool
	lazyMD5 bool
	// allowInsecureSSEC accepts SSE-C keys over plain HTTP (test setups).
	allowInsecureSSEC bool
	maxRequests       int
	// maxAnonymousRequests is the separate budget of requests without
	// valid credentials (0: the api package's default share).
	maxAnonymousRequests int
	// postFieldTimeout bounds the arrival of a browser POST upload's
	// fields, which are read before it is authenticated.
	postFieldTimeout time.Duration
	// Connection limits against slow and idle clients (httpserver.go).
	headerTimeout time.Duration
	bodyTimeout   time.Duration
	idleTimeout   time.Duration
	// maxConnections caps the open connections of the S3 listener, and
	// of the website endpoint's apart (0: no cap).
	maxConnections int
	// defaultCacheControl is sent with objects stored without
	// Cache-Control (docs/cdn.md).
	defaultCacheControl string
	// cacheMemory is the hot-object cache's budget (0: off) and
	// cacheMaxObject the largest object it keeps (pkg/hotcache).
	cacheMemory    byteSize
	cacheMaxObject byteSize
	// documentMemory bounds the request documents held at once
	// (api.Options.DocumentMemory).
	documentMemory byteSize
	// Edge mode (pkg/edge): a disk cache in front of a remote S3 origin.
	upstream          string
	upstreamAccessKey string
	upstreamSecretKey string
	upstreamRegion    string
	// cacheDirs are the edge cache's disks (--cache-dir, repeatable);
	// a disk without a size of its own has cacheSize.
	cacheDirs         cacheDirs
	cacheSize         byteSize
	cacheSlice        byteSize
	cacheTTL          time.Duration
	cacheStaleIfError time.Duration
	// negativeTTL is how long the edge answers an origin 404 itself (0:
	// off); upstreamStyle is "path" or "virtual".
	negativeTTL   time.Duration
	upstreamStyle string
	edgePublic    bool
	// edgeFastHits answers anonymous plain GET/HEAD hits of an edge on
	// the raw connection (pkg/httpintercept), outside net/http.
	edgeFastHits bool
	// upstreamCAFile adds CAs to the system's for the origin's
	// certificate (edge mode).
	upstreamCAFile string
	// TLS (tls.go): certificate pairs of the S3 and admin listeners, or a
	// generated self-signed pair, and how often their files are checked
	// for a replacement.
	tlsCert, tlsKey           string
	adminTLSCert, adminTLSKey string
	tlsSelfSigned             bool
	tlsReloadInterval         time.Duration
	// shutdownTimeout is the drain limit: how long requests in flight
	// may take to finish after SIGINT or SIGTERM (drain.go).
	shutdownTimeout time.Duration
}

// parseConfig reads flags, falling back to OBJECTGATEWAY_<NAME> for every
// flag not given on the command line.
func parseConfig(args []string, stderr io.Writer, getenv func(string) string) (config, error) {
	var c config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.root, "root", "./data", "data root: one directory per bucket, one file per object")
	fs.StringVar(&c.listen, "listen", "127.0.0.1:9000", "address to serve S3 on")
	fs.StringVar(&c.index, "index", "", "the catalogue: empty for the embedded bbolt index in the root's state directory (one gateway per root), or a PostgreSQL database (postgres://user@host/db or a libpq keyword DSN) that several gateways on the same root share; see docs/scale-out.md")
	fs.IntVar(&c.indexConns, "index-conns", 0, "most connections to the --index database, and as many again for the locks of writes in flight (0: four per CPU)")
	fs.IntVar(&c.recordCache, "record-cache", 0, "records of recently read objects a gateway on an --index catalogue keeps, each confirmed by its file's stamp on every read (0: 4096; -1: off)")
	fs.StringVar(&c.region, "region", "us-east-1", "region requests are signed for")
	fs.StringVar(&c.newBucketDefaults, "new-bucket-defaults", "legacy", "access settings of buckets created from now on: legacy (S3 before April 2023: no Block Public Access, ObjectWriter ownership, ACLs in force) or aws2023 (Block Public Access on, BucketOwnerEnforced: ACLs disabled); existing buckets keep theirs")
	fs.BoolVar(&c.sigv2, "sigv2", true, "accept requests, presigned URLs and browser POST uploads signed with Signature Version 2 (HMAC-SHA1, body unsigned) besides Version 4; false: refuse them as S3 regions that accept only Version 4 do")
	fs.StringVar(&c.domain, "domain", "", "base domain for virtual-hosted-style requests (bucket.DOMAIN); empty: path-style only")
	fs.StringVar(&c.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&c.logFormat, "log-format", "json", "log format: json or console")
	fs.BoolVar(&c.fsync, "fsync", true, "fsync data, directories and the index before acknowledging a write (false: faster, writes may be lost on power failure)")
	fs.DurationVar(&c.multipartExpiry, "multipart-expiry", 7*24*time.Hour, "remove multipart uploads not completed within this time, with their parts, unless a lifecycle rule (AbortIncompleteMultipartUpload) of their bucket matches them")
	fs.DurationVar(&c.lifecycleDay, "lifecycle-day", 24*time.Hour, "length of a day in lifecycle rules; shorter only for tests and compatibility suites (a rule of Days 1 then acts within two such days)")
	fs.DurationVar(&c.lifecycleInterval, "lifecycle-interval", time.Hour, "how often the lifecycle worker starts a pass over the buckets' rules and abandoned uploads")
	fs.StringVar(&c.adminListen, "admin-listen", "", "address of the admin listener (/metrics, /healthz, /readyz); empty: off")
	fs.BoolVar(&c.pprof, "pprof", false, "serve /debug/pprof/ on the admin listener")
	fs.StringVar(&c.websiteListen, "website-listen", "", "address of the website endpoint: buckets' static sites (PutBucketWebsite), anonymous GET and HEAD; empty: off")
	fs.StringVar(&c.websiteDomain, "website-domain", "", "base domain of the website endpoint's hosts (bucket.DOMAIN); empty: the Host without its port is the bucket name")
	fs.BoolVar(&c.allowInsecureSSEC, "allow-insecure-sse-c", false, "accept SSE-C customer keys over plain HTTP, which S3 refuses: for test setups only, the key crosses the network in clear")
	fs.BoolVar(&c.lazyMD5, "lazy-md5", false, "after the first read of a file the gateway did not hash (found on disk, changed behind its back), compute its MD5 in the background and make it the ETag")
	fs.BoolVar(&c.watch, "watch", false, "watch bucket directories with inotify so that files changed behind the gateway's back show in listings without a scan (see docs/scan-and-fsck.md)")
	fs.IntVar(&c.maxRequests, "max-requests", 1024, "authenticated S3 requests served at once; more are answered 503 SlowDown (0: no limit)")
	fs.IntVar(&c.maxAnonymousRequests, "max-anonymous-requests", 0, "requests without valid credentials (anonymous reads, CORS preflights, browser POST uploads until their policy is verified, answers to bad signatures) served at once, apart from --max-requests; more are answered 503 SlowDown (0: an eighth of --max-requests, at least 16)")
	fs.DurationVar(&c.postFieldTimeout, "post-field-timeout", 10*time.Second, "fail a browser POST upload with RequestTimeout when its form fields, read before it is authenticated, take longer than this to arrive")
	fs.DurationVar(&c.headerTimeout, "header-timeout", 30*time.Second, "close a connection whose request headers take longer than this to arrive")
	fs.DurationVar(&c.bodyTimeout, "body-timeout", 60*time.Second, "fail a request with RequestTimeout when its body stops arriving for this long (0: no limit)")
	fs.DurationVar(&c.shutdownTimeout, "shutdown-timeout", 30*time.Second, "on SIGINT or SIGTERM, wait this long for requests in flight to finish; the ones still running are then cut off, logged and their partial uploads removed")
	fs.DurationVar(&c.idleTimeout, "idle-timeout", 2*time.Minute, "close keep-alive connections idle for this long")
	fs.IntVar(&c.maxConnections, "max-connections", defaultMaxConnections, "connections the S3 listener (and the website endpoint, apart) holds open at once; at the cap the one waiting longest for a request (idle keep-alive, or an unfinished request head) is closed for a new one, and when all are serving requests new ones wait in the kernel's listen queue (0: no cap)")
	fs.StringVar(&c.defaultCacheControl, "default-cache-control", "", "Cache-Control sent with GET/HEAD of objects stored without one, e.g. \"public, max-age=300\" (empty: none; see docs/cdn.md)")
	fs.Var(&c.cacheMemory, "cache-memory", "memory for the hot-object cache of small objects, e.g. 64MiB (0: off)")
	c.cacheMaxObject = hotcache.DefaultMaxObject
	fs.Var(&c.cacheMaxObject, "cache-max-object", "largest object the hot-object cache keeps, e.g. 16KiB")
	c.documentMemory = api.DefaultDocumentMemory
	fs.Var(&c.documentMemory, "document-memory", "memory for the XML and JSON request documents (DeleteObjects, CompleteMultipartUpload, ACLs, tagging, CORS, policies) held at once; more wait for room, e.g. 256MiB (at least 4MiB)")
	fs.StringVar(&c.upstream, "upstream", "", "edge mode: serve GET/HEAD of this remote S3 origin's objects (http(s)://host:port, path-style) through a disk cache; see docs/cdn.md")
	fs.StringVar(&c.upstreamAccessKey, "upstream-access-key", "", "edge mode: access key signing requests to the origin (empty: anonymous)")
	fs.StringVar(&c.upstreamSecretKey, "upstream-secret-key", "", "edge mode: secret key for the origin (prefer OBJECTGATEWAY_UPSTREAM_SECRET_KEY to the flag)")
	fs.StringVar(&c.upstreamRegion, "upstream-region", "us-east-1", "edge mode: the origin's signing region")
	fs.Var(&c.cacheDirs, "cache-dir", "edge mode: `DIR[:SIZE]`, a directory of cached objects and their catalogue (default: ROOT/.objectgateway/edge); repeat it, as DIR:SIZE (e.g. --cache-dir /ssd1/edge:200GiB --cache-dir /ssd2/edge:100GiB), for one directory per disk: objects are spread by a hash of their key weighted by the sizes, and a failing disk costs only its share; with several, a directory is not created when absent (point at a directory inside the mount, so that an unmounted disk shows as missing)")
	c.cacheSize = 1 << 30
	fs.Var(&c.cacheSize, "cache-size", "edge mode: byte budget of the disk cache, e.g. 50GiB (of each --cache-dir given without a size)")
	c.cacheSlice = 4 << 20
	fs.Var(&c.cacheSlice, "cache-slice", "edge mode: unit of fetching large objects from the origin, e.g. 4MiB")
	fs.DurationVar(&c.cacheTTL, "cache-ttl", 10*time.Minute, "edge mode: freshness of objects whose origin response gives none (Cache-Control, Expires)")
	fs.DurationVar(&c.cacheStaleIfError, "cache-stale-if-error", time.Hour, "edge mode: how long past freshness an object is served while the origin fails (0: never)")
	fs.DurationVar(&c.negativeTTL, "negative-ttl", 10*time.Second, "edge mode: how long an origin 404 (NoSuchKey) is answered from the cache without asking the origin again (0: never)")
	fs.StringVar(&c.upstreamStyle, "upstream-style", "path", "edge mode: how objects are addressed at the origin: path (URL/bucket/key) or virtual (bucket.HOST/key, virtual-hosted-style)")
	fs.BoolVar(&c.edgePublic, "edge-public", false, "edge mode: let anonymous clients read through the edge (public content)")
	fs.BoolVar(&c.edgeFastHits, "edge-fast-hits", true, "edge mode with --edge-public on a plain-HTTP listener: answer anonymous plain GET and HEAD hits of fresh, fully cached objects on the connection itself, outside net/http (false: every request through net/http)")
	fs.StringVar(&c.upstreamCAFile, "upstream-ca-file", "", "edge mode: PEM bundle of CAs trusted for an https:// origin's certificate, besides the system's")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "serve S3 over TLS with this PEM certificate (chain, leaf first); needs --tls-key")
	fs.StringVar(&c.tlsKey, "tls-key", "", "PEM private key of --tls-cert")
	fs.BoolVar(&c.tlsSelfSigned, "tls-self-signed", false, "serve S3 over TLS with a self-signed certificate generated on first start into ROOT/.objectgateway/tls and reused after")
	fs.StringVar(&c.adminTLSCert, "admin-tls-cert", "", "serve the admin listener over TLS with this PEM certificate; needs --admin-tls-key")
	fs.StringVar(&c.adminTLSKey, "admin-tls-key", "", "PEM private key of --admin-tls-cert")
	fs.DurationVar(&c.tlsReloadInterval, "tls-reload-interval", 5*time.Second, "how often the TLS certificate and key files are checked for a replacement (0: only on SIGHUP)")
	if err := parseFlags(fs, args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || err != nil {
			return
		}
		env := "OBJECTGATEWAY_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := getenv(env); v != "" {
			if serr := f.Value.Set(v); serr != nil {
				err = fmt.Errorf("%s=%q: %v", env, v, serr)
			}
		}
	})
	if err != nil {
		return c, err
	}
	if c.headerTimeout <= 0 || c.idleTimeout <= 0 || c.bodyTimeout < 0 || c.postFieldTimeout <= 0 || c.shutdownTimeout < 0 {
		return c, fmt.Errorf("--header-timeout, --idle-timeout and --post-field-timeout must be positive, --body-timeout and --shutdown-timeout not negative")
	}
	if c.maxRequests < 0 || c.maxAnonymousRequests < 0 || c.maxConnections < 0 {
		return c, fmt.Errorf("--max-requests, --max-anonymous-requests and --max-connections must not be negative")
	}
	if c.multipartExpiry <= 0 {
		return c, fmt.Errorf("--multipart-expiry must be positive")
	}
	if c.lifecycleDay <= 0 || c.lifecycleInterval <= 0 {
		return c, fmt.Errorf("--lifecycle-day and --lifecycle-interval must be positive")
	}
	if !validHeaderValue(c.defaultCacheControl) {
		return c, fmt.Errorf("--default-cache-control %q is not a header value", c.defaultCacheControl)
	}
	if c.upstream != "" && (c.cacheSize <= 0 || c.cacheSlice < 64<<10 || c.cacheTTL < 0 || c.cacheStaleIfError < 0 || c.negativeTTL < 0) {
		return c, fmt.Errorf("--cache-size must be positive, --cache-slice at least 64KiB, --cache-ttl, --cache-stale-if-error and --negative-ttl not negative")
	}
	if c.upstreamStyle != "path" && c.upstreamStyle != "virtual" {
		return c, fmt.Errorf("--upstream-style must be path or virtual, not %q", c.upstreamStyle)
	}
	if err := checkTLSConfig(c); err != nil {
		return c, err
	}
	switch c.newBucketDefaults {
	case "legacy", "aws2023":
	default:
		return c, fmt.Errorf("--new-bucket-defaults must be legacy or aws2023, not %q", c.newBucketDefaults)
	}
	switch c.logFormat {
	case "json", "console":
	default:
		return c, fmt.Errorf("--log-format must be json or console, not %q", c.logFormat)
	}
	return c, nil
}
