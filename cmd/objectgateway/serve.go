package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/api"
	lcworker "github.com/objectgateway/objectgateway/pkg/expire"
	"github.com/objectgateway/objectgateway/pkg/hotcache"
	"github.com/objectgateway/objectgateway/pkg/httpintercept"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// env is what a subcommand gets from the process.
type env struct {
	stdout, stderr io.Writer
	// stdin is what `user policy put AK -` reads; nil has none.
	stdin  io.Reader
	getenv func(string) string
	// ready, when set, receives the listening address once the gateway
	// accepts requests (tests use it instead of polling).
	ready func(addr string)
	// adminReady, when set, receives the admin listener's address.
	adminReady func(addr string)
	// websiteReady, when set, receives the website endpoint's address.
	websiteReady func(addr string)
	// edgeNow, when set, is the edge cache's clock (--upstream), which
	// decides when a cached copy must be revalidated; nil is time.Now.
	// Tests step it, so that a copy expires when the test says and not
	// when a slow machine lets a short max-age run out.
	edgeNow func() time.Time
	// tlsReady, when set, receives the listeners' certificates once they
	// are loaded: tests call their reload entry points, the ones SIGHUP
	// and the file check call, instead of signalling or waiting.
	tlsReady func(*tlsListeners)
	// wrap, when set, wraps the S3 handler (tests watch requests arrive
	// with it).
	wrap func(http.Handler) http.Handler
}

// serve runs the gateway until ctx is cancelled.
func serve(ctx context.Context, args []string, e env) error {
	cfg, err := parseConfig(args, e.stderr, e.getenv)
	if err != nil {
		return err
	}
	log, err := newLogger(cfg, e.stderr)
	if err != nil {
		return err
	}
	// The last line of a gateway that served says how it stopped. It is
	// deferred first so that it runs last, after the index and the
	// staging area are closed.
	var cut int
	served := false
	defer func() {
		if served {
			log.Info().Int("cut", cut).Msg("ObjectGateway stopped")
		}
	}()
	adm := newAdmin(cfg.pprof)
	tl := &tlsListeners{log: log}
	if cfg.adminListen != "" {
		if adm.srv.TLSConfig, err = tl.add("admin", cfg.adminTLSCert, cfg.adminTLSKey); err != nil {
			return fmt.Errorf("--admin-tls-cert: %w", err)
		}
		addr, err := adm.serve(cfg.adminListen)
		if err != nil {
			return fmt.Errorf("--admin-listen: %w", err)
		}
		defer adm.srv.Close()
		log.Info().Str("admin_listen", addr.String()).Bool("pprof", cfg.pprof).Msg("admin listener: /metrics /healthz /readyz")
		if e.adminReady != nil {
			e.adminReady(addr.String())
		}
	}
	var hot *hotcache.Cache
	if cfg.cacheMemory > 0 {
		if hot, err = hotcache.New(hotcache.Options{MaxBytes: int64(cfg.cacheMemory), MaxObject: int64(cfg.cacheMaxObject)}); err != nil {
			return fmt.Errorf("--cache-memory: %w", err)
		}
		adm.hotCache(hot)
	}
	layer, err := object.Open(object.Options{Root: cfg.root, Index: cfg.index, IndexConns: cfg.indexConns, RecordCache: cfg.recordCache, NoSync: !cfg.fsync, LazyMD5: cfg.lazyMD5, HotCache: hot})
	if err != nil {
		hot.Close()
		return fmt.Errorf("open %s: %w", cfg.root, err)
	}
	defer func() {
		if err := layer.Close(); err != nil {
			log.Error().Err(err).Msg("closing the index")
		}
	}()
	for _, m := range layer.Migrations() {
		if m.Dropped {
			log.Warn().Str("bucket", m.Bucket).Msg("canned ACL public-read of an earlier version dropped: the bucket's IgnorePublicAcls made it grant nothing (docs/security.md)")
			continue
		}
		log.Info().Str("bucket", m.Bucket).Msg("canned ACL public-read of an earlier version turned into a bucket policy that lets everyone read and list, as before (docs/security.md)")
	}
	if err := autoImport(layer, e.stderr, log); err != nil {
		return err
	}
	if cfg.watch {
		w, err := layer.Watch(object.WatchOptions{Log: log})
		if err != nil {
			return fmt.Errorf("--watch: %w", err)
		}
		// Deferred after layer.Close, so it runs first: the watcher stops
		// before the index it writes to is closed.
		defer w.Close()
		log.Info().Msg("watch mode: out-of-band changes to bucket directories are indexed as they happen")
	}
	creds, credSrc, err := loadCredentials(e.getenv, layer.StatePath(credentialsFile))
	if err != nil {
		return err
	}
	credSrc.log(log, creds.Access)
	if credSrc.from == fromGenerated {
		fmt.Fprintf(e.stdout, "Generated credentials (stored in %s):\n  access key: %s\n  secret key: %s\n",
			layer.StatePath(credentialsFile), creds.Access, creds.Secret)
	}

	edgeOpts, err := openEdge(cfg, layer, hot, e.edgeNow, log)
	if err != nil {
		return err
	}
	if edgeOpts != nil {
		defer func() {
			if err := edgeOpts.Cache.Close(); err != nil {
				log.Error().Err(err).Msg("closing the edge cache")
			}
		}()
		adm.edgeCache(edgeOpts.Cache, creds, cfg.region)
	}

	// users is shared by the S3 handler and the control socket, so that a
	// change made through the socket is in force from the next request.
	users := layer.Users(object.UsersOptions{Root: object.RootUser{AccessKey: creds.Access, SecretKey: creds.Secret}})
	ctl, err := startControl(layer, users, log)
	if err != nil {
		return err
	}
	defer ctl.close()

	s3TLS, err := tl.s3(cfg, layer, e.stdout)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return err
	}
	if s3TLS != nil {
		ln = tls.NewListener(ln, s3TLS)
	}
	tl.metrics(adm.reg)
	adm.indexSize(layer.StatePath(object.IndexFile))
	immutable, why := layer.ImmutableSupport()
	adm.immutableFlag(immutable)
	if !immutable {
		log.Warn().Str("reason", why).Msg("Object Lock: the files of locked versions cannot get the immutable flag here; the gateway still refuses every removal, but a local rm by a user with write access to the root is not stopped (docs/durability.md)")
	}
	handler := api.New(layer, api.Options{
		AllowInsecureSSEC:    cfg.allowInsecureSSEC,
		Region:               cfg.region,
		LifecycleDay:         cfg.lifecycleDay,
		Domain:               cfg.domain,
		Credentials:          users,
		SigV2:                cfg.sigv2,
		NewBucketDefaults:    newBucketDefaults(cfg.newBucketDefaults),
		Logger:               log,
		Metrics:              api.NewMetrics(adm.reg),
		MaxInFlight:          cfg.maxRequests,
		MaxAnonymousInFlight: cfg.maxAnonymousRequests,
		PostFieldTimeout:     cfg.postFieldTimeout,
		BodyTimeout:          cfg.bodyTimeout,
		DefaultCacheControl:  cfg.defaultCacheControl,
		DocumentMemory:       int64(cfg.documentMemory),
		Edge:                 edgeOpts,
	})
	// The website endpoint stops when ctx ends or serve returns, whichever
	// comes first, and serve returns only once it has stopped.
	webCtx, stopWeb := context.WithCancel(ctx)
	defer stopWeb()
	web, err := startWebsite(webCtx, cfg, handler, adm, log)
	if err != nil {
		return err
	}
	defer web.wait()
	defer stopWeb()
	if web != nil && e.websiteReady != nil {
		e.websiteReady(web.addr)
	}
	var h http.Handler = handler
	if e.wrap != nil {
		h = e.wrap(h)
	}
	srv := newHTTPServer(cfg, h)
	log.Info().Str("listen", ln.Addr().String()).Str("root", cfg.root).Str("region", cfg.region).
		Str("access_key", creds.Access).Bool("fsync", cfg.fsync).Bool("tls", s3TLS != nil).Msg("ObjectGateway serving S3")
	adm.ready.Store(true)
	if e.ready != nil {
		e.ready(ln.Addr().String())
	}

	if e.tlsReady != nil {
		e.tlsReady(tl)
	}
	tlsDone := make(chan struct{})
	go func() {
		defer close(tlsDone)
		tl.run(ctx, cfg.tlsReloadInterval)
	}()
	defer func() { <-tlsDone }()

	errc := make(chan error, 1)
	// httpintercept needs a server without ReadTimeout (its doc), which
	// newHTTPServer never sets.
	fastHits := cfg.edgeFastHits && edgeOpts != nil && cfg.edgePublic && s3TLS == nil && srv.ReadTimeout == 0
	serveLn := plainListener(ln, s3TLS == nil, fastHits)
	var fastLn *httpintercept.Listener
	if fastHits {
		fastLn = fastHitListener(serveLn, srv, handler)
		serveLn = fastLn
		log.Info().Msg("edge mode: anonymous plain GET and HEAD hits answered on the connection, outside net/http (--edge-fast-hits)")
	}
	serveLn, connStats := limitConnections(serveLn, srv, cfg.maxConnections)
	adm.connections("s3", connStats)
	served = true
	go func() { errc <- srv.Serve(serveLn) }()
	lc := lcworker.New(lcworker.Options{
		Layer: layer, Day: cfg.lifecycleDay, DefaultUploadExpiry: cfg.multipartExpiry, Busy: lifecycleBusy, Log: log,
		Holder: leaseHolder(ln.Addr()),
	})
	adm.lifecycle(lc.Stats())
	lcDone := make(chan struct{})
	go func() {
		defer close(lcDone)
		lc.Run(ctx, cfg.lifecycleInterval)
	}()
	defer func() { <-lcDone }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	if cut, err = drain(srv, handler, fastLn, cfg.shutdownTimeout, log); err != nil {
		return err
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// lifecycleBusy is the share of a lifecycle pass's time the worker works:
// after each round it waits three times the CPU time the round took, so a
// pass over a large bucket takes at most a quarter of one CPU and leaves
// the index's writer lock to requests most of the time
// (docs/performance.md, "Lifecycle pass (issue 14)": 0.5 measured a 10–19%
// cost to a mixed workload, 0.25 3–6%, both passes well under 30 s).
const lifecycleBusy = 0.25

// logLevel reads --log-level: debug, info, warn or error. zerolog's own
// parser also takes "", numbers, trace, fatal, panic and disabled, which
// the flag's help does not offer.
func logLevel(s string) (zerolog.Level, error) {
	switch s {
	case "debug":
		return zerolog.DebugLevel, nil
	case "info":
		return zerolog.InfoLevel, nil
	case "warn":
		return zerolog.WarnLevel, nil
	case "error":
		return zerolog.ErrorLevel, nil
	}
	return zerolog.NoLevel, fmt.Errorf("--log-level %q: want one of debug, info, warn, error", s)
}

func newLogger(cfg config, stderr io.Writer) (zerolog.Logger, error) {
	level, err := logLevel(cfg.logLevel)
	if err != nil {
		return zerolog.Nop(), err
	}
	out := stderr
	if cfg.logFormat == "console" {
		out = zerolog.ConsoleWriter{Out: stderr, TimeFormat: time.RFC3339, NoColor: !isTerminal(stderr)}
	}
	return zerolog.New(out).Level(level).With().Timestamp().Logger(), nil
}

// newBucketDefaults maps --new-bucket-defaults to api.Options.NewBucketDefaults.
func newBucketDefaults(flag string) string {
	if flag == "aws2023" {
		return api.DefaultsAWS2023
	}
	return api.DefaultsLegacy
}

// leaseHolder is the gateway's identity in the index's leases: its host
// and listening address, the same after a restart (so that a gateway
// restarted after a crash takes its own lease back at once) and distinct
// among gateways sharing an index.
func leaseHolder(addr net.Addr) string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return host + "/" + addr.String()
}
