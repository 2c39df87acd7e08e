package api

import "net/http"

// SetDocumentWaiting makes the Server h call f whenever a request starts
// to wait for its share of the document budget.
func SetDocumentWaiting(h http.Handler, f func()) {
	h.(*Server).documents.waiting = f
}
