package api

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/objectgateway/objectgateway/pkg/object"
)

// SetAuthzRecordRead makes the Server h read the records its access
// decisions need with f instead of the layer's StatVersion, so that a test
// can make that read fail.
func SetAuthzRecordRead(h http.Handler, f func(bucket, key, versionID string) (object.Object, error)) {
	h.(*Server).recordOf = f
}

// ImplementedOperations returns the name of every operation route can
// dispatch to, found by probing it with every method, level, subresource
// and the headers and parameters that select variants. The multi-user
// authorization test checks that it covers each one.
func ImplementedOperations() []string {
	s := &Server{}
	seen := map[string]bool{}
	methods := []string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodPost, http.MethodDelete, http.MethodOptions}
	subs := append([]string{""}, subresources...)
	for _, m := range methods {
		for _, lv := range []level{levelService, levelBucket, levelObject} {
			for _, sub := range subs {
				for variant := 0; variant < 16; variant++ {
					q := url.Values{}
					if sub != "" {
						q.Set(sub, "")
					}
					h := http.Header{}
					if variant&1 != 0 {
						q.Set("uploadId", "x")
					}
					if variant&2 != 0 {
						h.Set("X-Amz-Copy-Source", "/b/k")
					}
					if variant&4 != 0 {
						q.Set("list-type", "2")
					}
					if variant&8 != 0 {
						h.Set("Content-Type", "multipart/form-data; boundary=x")
					}
					seen[s.route(m, lv, q, h).name] = true
				}
			}
		}
	}
	var out []string
	for name := range seen {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
