package main

import (
	"fmt"
	"net/url"
	"time"

	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/edge"
	"github.com/objectgateway/objectgateway/pkg/hotcache"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// openEdge opens the edge cache when --upstream is set; nil otherwise.
// hot, when not nil (--cache-memory), is the edge's memory tier; now is
// the cache's clock (nil: time.Now).
func openEdge(cfg config, layer *object.Layer, hot *hotcache.Cache, now func() time.Time, log zerolog.Logger) (*api.EdgeOptions, error) {
	if cfg.upstream == "" {
		return nil, nil
	}
	u, err := url.Parse(cfg.upstream)
	if err != nil {
		return nil, fmt.Errorf("--upstream: %w", err)
	}
	var disks []edge.Disk
	for _, d := range cfg.cacheDirs {
		size := d.size
		if size == 0 {
			size = int64(cfg.cacheSize)
		}
		disks = append(disks, edge.Disk{Dir: d.dir, MaxBytes: size})
	}
	if len(disks) == 0 {
		disks = []edge.Disk{{Dir: layer.StatePath("edge"), MaxBytes: int64(cfg.cacheSize)}}
	}
	roots, err := upstreamRoots(cfg.upstreamCAFile)
	if err != nil {
		return nil, err
	}
	stale := cfg.cacheStaleIfError
	if stale == 0 {
		stale = -1
	}
	negative := cfg.negativeTTL
	if negative == 0 {
		negative = -1
	}
	c, err := edge.Open(edge.Options{
		Upstream:     u,
		AccessKey:    cfg.upstreamAccessKey,
		SecretKey:    cfg.upstreamSecretKey,
		Region:       cfg.upstreamRegion,
		RootCAs:      roots,
		Disks:        disks,
		SliceSize:    int64(cfg.cacheSlice),
		DefaultTTL:   cfg.cacheTTL,
		StaleIfError: stale,
		NegativeTTL:  negative,
		VirtualHost:  cfg.upstreamStyle == "virtual",
		NoSync:       !cfg.fsync,
		Memory:       hot,
		Logger:       log,
		Now:          now,
	})
	if err != nil {
		return nil, fmt.Errorf("edge mode: %w", err)
	}
	st := c.Stats()
	for _, d := range st.Disks {
		log.Info().Str("cache_dir", d.Dir).Int64("cache_size", d.MaxBytes).Bool("healthy", d.Healthy).
			Int("cached_objects", d.Objects).Int64("cached_bytes", d.Bytes).Msg("edge mode: cache disk")
	}
	log.Info().Str("upstream", u.Redacted()).Str("cache_dir", disks[0].Dir).Int("cache_disks", len(disks)).Int64("cache_size", st.MaxBytes).
		Int("cached_objects", st.Objects).Int64("cached_bytes", st.Bytes).Bool("public", cfg.edgePublic).
		Msg("edge mode: serving GET and HEAD of the origin's objects through the disk cache")
	return &api.EdgeOptions{Cache: c, Public: cfg.edgePublic}, nil
}
