package main

import (
	"net/http"
)

// maxHeaderBytes bounds the request line and headers. S3 allows 8 KiB of
// headers (2 KiB of them user metadata); 64 KiB leaves room for long
// presigned URLs and many x-amz-meta-* names. Beyond it net/http answers
// 431 Request Header Fields Too Large itself, before any handler runs, so
// that answer carries no S3 error body (docs/security.md).
const maxHeaderBytes = 64 << 10

// newHTTPServer returns the S3 listener's server with the connection
// limits of cfg: slow request headers (headerTimeout) close the
// connection, idle keep-alive connections are closed after idleTimeout.
// Slow bodies are the handler's business (api.Options.BodyTimeout),
// because only the handler can answer them with an S3 error; a whole-
// request ReadTimeout would also cut off large uploads on slow links.
func newHTTPServer(cfg config, h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: cfg.headerTimeout,
		IdleTimeout:       cfg.idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}
