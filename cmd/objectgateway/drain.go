package main

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/httpintercept"
)

// cutWait bounds how long the requests cut off at the drain limit get to
// notice their closed connections and end (their staged uploads are
// removed as they do, and by the object layer's Close for any left).
const cutWait = 5 * time.Second

// drain stops srv: it waits up to limit for the requests in flight to
// finish, then cuts off the ones still running, which log themselves as
// cut (see api.Server.Cut), and closes their connections, those of fast
// (the edge's hits answered outside net/http, may be nil) included. It
// returns how many requests were cut.
func drain(srv *http.Server, h *api.Server, fast *httpintercept.Listener, limit time.Duration, log zerolog.Logger) (int, error) {
	log.Info().Dur("drain_limit", limit).Msg("shutting down: waiting for in-flight requests")
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	err := srv.Shutdown(ctx)
	if err == nil && fast != nil {
		// net/http's Shutdown does not wait for answers written on the
		// connection itself (see httpintercept.Listener.Shutdown).
		err = fast.Wait(ctx)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		return 0, err
	}
	n, idle := h.Cut()
	log.Warn().Int("requests", n).Dur("drain_limit", limit).Msg("drain limit reached: cutting off the requests still running")
	if fast != nil {
		// Answers on the connection itself are not net/http's to cut.
		fast.Cut()
	}
	if err := srv.Close(); err != nil {
		return n, err
	}
	t := time.NewTimer(cutWait)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
		log.Error().Dur("waited", cutWait).Msg("requests cut off at the drain limit have not ended; exiting without them")
	}
	return n, nil
}
