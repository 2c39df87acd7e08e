package api

import "net/http"

// setDefaultCacheControl gives a GET, HEAD or 304 response of an object
// stored without Cache-Control the server's default
// (Options.DefaultCacheControl), so that an edge cache keeps and
// revalidates objects uploaded without caching headers instead of
// guessing a lifetime. A stored value, or a response-cache-control
// override already in h, wins.
func (s *Server) setDefaultCacheControl(h http.Header) {
	if s.opts.DefaultCacheControl != "" && len(h["Cache-Control"]) == 0 {
		h["Cache-Control"] = []string{s.opts.DefaultCacheControl}
	}
}
