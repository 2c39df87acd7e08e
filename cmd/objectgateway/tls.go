package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/tlsreload"
)

// tlsStateDir is where --tls-self-signed keeps its pair, under the state
// directory.
const tlsStateDir = "tls"

// checkTLSConfig refuses TLS flags that do not go together.
func checkTLSConfig(c config) error {
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	if (c.adminTLSCert == "") != (c.adminTLSKey == "") {
		return errors.New("--admin-tls-cert and --admin-tls-key go together")
	}
	if c.tlsSelfSigned && c.tlsCert != "" {
		return errors.New("--tls-self-signed and --tls-cert exclude each other")
	}
	if c.adminTLSCert != "" && c.adminListen == "" {
		return errors.New("--admin-tls-cert needs --admin-listen")
	}
	if c.tlsReloadInterval < 0 {
		return errors.New("--tls-reload-interval must not be negative")
	}
	return nil
}

// tlsListeners are the certificates of the listeners that serve TLS. Their
// reload entry point is reload (SIGHUP) and poll (the file check).
type tlsListeners struct {
	log       zerolog.Logger
	reloaders []*tlsreload.Reloader
}

// add loads the pair of one listener and returns its TLS configuration;
// nil when certFile is empty (that listener serves plain HTTP).
func (t *tlsListeners) add(name, certFile, keyFile string) (*tls.Config, error) {
	if certFile == "" {
		return nil, nil
	}
	r, err := tlsreload.New(tlsreload.Options{CertFile: certFile, KeyFile: keyFile, Name: name, Logger: t.log})
	if err != nil {
		return nil, err
	}
	t.reloaders = append(t.reloaders, r)
	leaf := r.Certificate()
	t.log.Info().Str("listener", name).Str("cert_file", certFile).Str("serial", leaf.SerialNumber.String()).
		Time("not_after", leaf.NotAfter).Msg("TLS certificate loaded")
	return r.Config(), nil
}

// s3 returns the S3 listener's TLS configuration (nil: plain HTTP). With
// --tls-self-signed it generates or reuses the pair in the state
// directory and prints its path and fingerprint, which clients need to
// trust it.
func (t *tlsListeners) s3(cfg config, layer *object.Layer, stdout io.Writer) (*tls.Config, error) {
	certFile, keyFile := cfg.tlsCert, cfg.tlsKey
	if cfg.tlsSelfSigned {
		var created bool
		var err error
		certFile, keyFile, created, err = tlsreload.SelfSigned(layer.StatePath(tlsStateDir), selfSignedHosts(cfg), time.Now())
		if err != nil {
			return nil, fmt.Errorf("--tls-self-signed: %w", err)
		}
		conf, err := t.add("s3", certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("--tls-self-signed: %w", err)
		}
		how := "reused"
		if created {
			how = "generated"
		}
		fmt.Fprintf(stdout, "TLS self-signed certificate (%s): %s\n  SHA-256 fingerprint: %s\n",
			how, certFile, tlsreload.Fingerprint(t.reloaders[len(t.reloaders)-1].Certificate()))
		return conf, nil
	}
	conf, err := t.add("s3", certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert: %w", err)
	}
	return conf, nil
}

// selfSignedHosts are the names a self-signed certificate covers besides
// localhost and the loopback addresses: --domain with its virtual-hosted
// buckets, and the host --listen names.
func selfSignedHosts(cfg config) []string {
	var hosts []string
	if cfg.domain != "" {
		hosts = append(hosts, cfg.domain, "*."+cfg.domain)
	}
	if h, _, err := net.SplitHostPort(cfg.listen); err == nil && h != "" {
		hosts = append(hosts, h)
	}
	return hosts
}

// reload reloads every listener's pair; it is what SIGHUP does. A pair
// that fails keeps its listener's certificate (the reloader logs why).
func (t *tlsListeners) reload() {
	for _, r := range t.reloaders {
		r.Reload()
	}
}

// poll reloads the pairs whose files changed since they were last loaded.
func (t *tlsListeners) poll() {
	for _, r := range t.reloaders {
		r.Poll()
	}
}

// run reloads on SIGHUP and polls the files every interval (0: never)
// until ctx ends. It returns at once when no listener serves TLS.
func (t *tlsListeners) run(ctx context.Context, interval time.Duration) {
	if len(t.reloaders) == 0 {
		return
	}
	// The registration is kept after run returns: a SIGHUP that a
	// certificate renewal sends while the gateway drains must not end it
	// (without a handler, SIGHUP terminates the process).
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	var tick <-chan time.Time
	if interval > 0 {
		tk := time.NewTicker(interval)
		defer tk.Stop()
		tick = tk.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			t.reload()
		case <-tick:
			t.poll()
		}
	}
}

// metrics registers the reload counters and each certificate's expiry.
func (t *tlsListeners) metrics(reg *prometheus.Registry) {
	for _, r := range t.reloaders {
		labels := prometheus.Labels{"listener": r.Name()}
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "objectgateway_tls_certificate_not_after_seconds",
			Help:        "Expiry (Unix time) of the TLS certificate in use.",
			ConstLabels: labels,
		}, func() float64 { return float64(r.Certificate().NotAfter.Unix()) }))
		for _, result := range []string{"ok", "failed"} {
			ok := result == "ok"
			reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name:        "objectgateway_tls_reloads_total",
				Help:        "TLS certificate reloads (SIGHUP or a changed file), by result; a failed one keeps the certificate in use.",
				ConstLabels: prometheus.Labels{"listener": r.Name(), "result": result},
			}, func() float64 {
				n, failed := r.Reloads()
				if !ok {
					n = failed
				}
				return float64(n)
			}))
		}
	}
}

// upstreamRoots returns the CAs an edge trusts for its origin: the
// system's plus the bundle in file; nil (the system's alone) when file is
// empty.
func upstreamRoots(file string) (*x509.CertPool, error) {
	if file == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--upstream-ca-file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--upstream-ca-file: %s holds no PEM certificate", file)
	}
	return pool, nil
}
