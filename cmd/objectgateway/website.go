package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/api"
)

// websiteListener is the website endpoint's listener (--website-listen):
// the buckets' static sites, anonymous GET and HEAD only, on an address
// of its own so that the S3 endpoint and the sites never share a host
// name.
type websiteListener struct {
	addr string
	// done is closed once the listener has stopped and its requests have
	// ended.
	done chan struct{}
}

// startWebsite starts the website endpoint when --website-listen is set
// (nil otherwise). It stops when ctx ends, giving the requests in flight
// the drain limit, at the same time as the S3 listener drains.
func startWebsite(ctx context.Context, cfg config, h *api.Server, adm *admin, log zerolog.Logger) (*websiteListener, error) {
	if cfg.websiteListen == "" {
		return nil, nil
	}
	if cfg.upstream != "" {
		return nil, errors.New("--website-listen: not available in edge mode (--upstream)")
	}
	ln, err := net.Listen("tcp", cfg.websiteListen)
	if err != nil {
		return nil, fmt.Errorf("--website-listen: %w", err)
	}
	srv := newHTTPServer(cfg, h.Website(api.WebsiteOptions{Domain: cfg.websiteDomain}))
	wl := &websiteListener{addr: ln.Addr().String(), done: make(chan struct{})}
	serveLn, connStats := limitConnections(ln, srv, cfg.maxConnections)
	adm.connections("website", connStats)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(serveLn) }()
	go func() {
		defer close(wl.done)
		select {
		case err := <-served:
			log.Error().Err(err).Msg("website listener stopped")
			return
		case <-ctx.Done():
		}
		sctx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			_ = srv.Close()
		}
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error().Err(err).Msg("website listener")
		}
	}()
	hosts := "the Host (without port) is the bucket name"
	if cfg.websiteDomain != "" {
		hosts = "bucket." + cfg.websiteDomain
	}
	log.Info().Str("website_listen", wl.addr).Str("website_hosts", hosts).Msg("website endpoint: static sites of buckets with a website configuration")
	return wl, nil
}

// wait returns once the listener has stopped; it is a no-op on nil.
func (wl *websiteListener) wait() {
	if wl != nil {
		<-wl.done
	}
}
