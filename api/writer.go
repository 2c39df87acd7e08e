package api

import (
	"io"
	"net/http"
)

// responseWriter records the status and the bytes written for the access
// log. It forwards ReadFrom so that io.Copy from an *os.File still reaches
// the connection's sendfile path, and Flush for streaming responses.
type responseWriter struct {
	http.ResponseWriter
	status  int
	written int64
	started bool
}

var (
	_ io.ReaderFrom = (*responseWriter)(nil)
	_ http.Flusher  = (*responseWriter)(nil)
)

func newResponseWriter(w http.ResponseWriter) *responseWriter {
	return &responseWriter{ResponseWriter: w, status: http.StatusOK}
}

func (w *responseWriter) WriteHeader(code int) {
	if w.started {
		return
	}
	w.status = code
	w.started = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(p []byte) (int, error) {
	w.started = true
	n, err := w.ResponseWriter.Write(p)
	w.written += int64(n)
	return n, err
}

// ReadFrom hands r to the underlying writer's ReadFrom (sendfile for an
// *os.File or an io.LimitedReader around one).
func (w *responseWriter) ReadFrom(r io.Reader) (int64, error) {
	w.started = true
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(r)
	} else {
		n, err = io.Copy(writerOnly{w.ResponseWriter}, r)
	}
	w.written += n
	return n, err
}

func (w *responseWriter) Flush() {
	w.started = true
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// writerOnly hides a ReadFrom method so io.Copy does not recurse into it.
type writerOnly struct{ io.Writer }
