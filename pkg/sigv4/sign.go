package sigv4

import (
	"encoding/hex"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// unsignedHeader reports the headers SignRequest never signs, matching the
// SDKs: proxies rewrite them, or Go's transport sets them after signing.
func unsignedHeader(lname string) bool {
	switch lname {
	case "authorization", "user-agent", "x-amzn-trace-id", "expect", "transfer-encoding", "accept-encoding":
		return true
	}
	return false
}

// SignRequest signs a client request in place with an Authorization
// header, for tests and tools. It sets X-Amz-Date to t and, when
// payloadHash is not "", X-Amz-Content-Sha256 to payloadHash (the signed
// payload line is UNSIGNED-PAYLOAD otherwise). It signs host and every
// header already set except the few that proxies or Go's transport change.
// r.URL must hold the path as it will be sent (RawPath for keys needing
// escaping).
func SignRequest(r *http.Request, accessKey, secret, region string, t time.Time, payloadHash string) {
	t = t.UTC()
	amzDate := t.Format(amzDateFmt)
	r.Header.Set("X-Amz-Date", amzDate)
	line := payloadHash
	if payloadHash != "" {
		r.Header.Set("X-Amz-Content-Sha256", payloadHash)
	} else {
		line = UnsignedPayload
	}
	r.Header.Del("Authorization")
	signed := []string{"host"}
	for name := range r.Header {
		l := strings.ToLower(name)
		if !unsignedHeader(l) {
			signed = append(signed, l)
		}
	}
	if r.ContentLength > 0 && r.Header.Get("Content-Length") == "" {
		signed = append(signed, "content-length")
	}
	sort.Strings(signed)
	pairs, _ := parseQuery(r.URL.RawQuery)
	sig, scope := sign(r, pairs, "", signed, secret, region, amzDate, line)
	r.Header.Set("Authorization", algorithm+" Credential="+accessKey+"/"+scope+
		", SignedHeaders="+strings.Join(signed, ";")+", Signature="+sig)
}

// Presign adds query authentication to a client request in place, valid
// for expires from t, signing only host and an UNSIGNED-PAYLOAD, as the
// SDK presigners do for GET and PUT.
func Presign(r *http.Request, accessKey, secret, region string, t time.Time, expires time.Duration) {
	t = t.UTC()
	amzDate := t.Format(amzDateFmt)
	scope := amzDate[:8] + "/" + region + "/" + service + "/" + terminator
	var b strings.Builder
	if r.URL.RawQuery != "" {
		b.WriteString(r.URL.RawQuery)
		b.WriteByte('&')
	}
	b.WriteString("X-Amz-Algorithm=" + algorithm)
	b.WriteString("&X-Amz-Credential=")
	s3Escape(&b, accessKey+"/"+scope, false)
	b.WriteString("&X-Amz-Date=" + amzDate)
	b.WriteString("&X-Amz-Expires=" + strconv.FormatInt(int64(expires/time.Second), 10))
	b.WriteString("&X-Amz-SignedHeaders=host")
	r.URL.RawQuery = b.String()
	pairs, _ := parseQuery(r.URL.RawQuery)
	sig, _ := sign(r, pairs, "", []string{"host"}, secret, region, amzDate, UnsignedPayload)
	r.URL.RawQuery += "&X-Amz-Signature=" + sig
}

// sign computes the hex signature and scope of a client request.
func sign(r *http.Request, pairs []queryPair, skip string, signed []string, secret, region, amzDate, payload string) (sig, scope string) {
	uri, err := canonicalURI(r.URL.EscapedPath())
	if err != nil {
		uri = r.URL.EscapedPath()
	}
	var cr strings.Builder
	cr.WriteString(r.Method + "\n" + uri + "\n" + canonicalQuery(pairs, skip) + "\n")
	writeCanonicalHeaders(&cr, r, signed)
	cr.WriteString("\n" + strings.Join(signed, ";") + "\n" + payload)
	scope = amzDate[:8] + "/" + region + "/" + service + "/" + terminator
	key := SigningKey(secret, amzDate[:8], region, service)
	return hex.EncodeToString(hmacSHA256(key, stringToSign(amzDate, scope, cr.String()))), scope
}
