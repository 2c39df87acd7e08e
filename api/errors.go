package api

import (
	"encoding/xml"
	"net/http"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// errorBody is S3's <Error> document.
type errorBody struct {
	XMLName   xml.Name `xml:"Error"`
	Code      string   `xml:"Code"`
	Message   string   `xml:"Message"`
	Extra     []extraField
	Resource  string `xml:"Resource,omitempty"`
	RequestID string `xml:"RequestId"`
	HostID    string `xml:"HostId"`
}

type extraField struct {
	XMLName xml.Name
	Value   string `xml:",chardata"`
}

// writeError renders err as S3 does: the status of its code, and an XML
// body except for HEAD requests and 304s. It is the only place an error
// becomes a response. When the response has already started (a GET whose
// connection broke mid-body) nothing more can be sent, and nothing is.
func (s *Server) writeError(w *responseWriter, r *http.Request, rq *request, err error) {
	if w.started {
		return
	}
	e := s3err.As(err)
	h := w.Header()
	for _, f := range e.Headers {
		h.Set(f.Name, f.Value)
	}
	status := e.Code.Status()
	if e.Code == s3err.NotModified {
		w.WriteHeader(status)
		return
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(status)
		return
	}
	out := s.errorDocument(r, rq, e)
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Length", itoa(int64(len(xml.Header)+len(out))))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(xml.Header))
	_, _ = w.Write(out)
}

// errorDocument is the <Error> document of err, without the XML
// declaration: the body writeError sends, and what a CompleteMultipartUpload
// or CopyObject that already answered 200 sends when it fails
// (runKeptAlive).
func (s *Server) errorDocument(r *http.Request, rq *request, err error) []byte {
	e := s3err.As(err)
	body := errorBody{
		Code:      e.Code.String(),
		Message:   e.Text(),
		Resource:  r.URL.EscapedPath(),
		RequestID: rq.id,
		HostID:    rq.id,
	}
	for _, f := range e.Extra {
		body.Extra = append(body.Extra, extraField{XMLName: xml.Name{Local: f.Name}, Value: f.Value})
	}
	out, merr := xml.Marshal(body)
	if merr != nil {
		out = []byte("<Error><Code>InternalError</Code></Error>")
	}
	return out
}

// writeXML renders a successful XML response.
func writeXML(w http.ResponseWriter, status int, v any) error {
	out, err := xml.Marshal(v)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Length", itoa(int64(len(xml.Header)+len(out))))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(xml.Header))
	_, err = w.Write(out)
	return err
}

// answeredError is an error whose answer a handler has already sent, as
// a CompleteMultipartUpload that failed after its early 200 sends its
// Error document in that 200's body: ServeHTTP logs and counts it and
// writes nothing more.
type answeredError struct{ err error }

func (e *answeredError) Error() string { return e.err.Error() }
func (e *answeredError) Unwrap() error { return e.err }
