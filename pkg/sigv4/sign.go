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
	var b []byte
	if r.URL.RawQuery != "" {
		b = append(b, r.URL.RawQuery...)
		b = append(b, '&')
	}
	b = append(b, "X-Amz-Algorithm="+algorithm...)
	b = append(b, "&X-Amz-Credential="...)
	b = appendS3Escape(b, accessKey+"/"+scope, false)
	b = append(b, "&X-Amz-Date="+amzDate...)
	b = append(b, "&X-Amz-Expires="...)
	b = strconv.AppendInt(b, int64(expires/time.Second), 10)
	b = append(b, "&X-Amz-SignedHeaders=host"...)
	r.URL.RawQuery = string(b)
	pairs, _ := parseQuery(r.URL.RawQuery)
	sig, _ := sign(r, pairs, "", []string{"host"}, secret, region, amzDate, UnsignedPayload)
	r.URL.RawQuery += "&X-Amz-Signature=" + sig
}

// signingKeys memoises the derived keys of the client signers, as the
// Verifier does for the keys it checks against.
var signingKeys keyCache

// sign computes the hex signature and scope of a client request.
func sign(r *http.Request, pairs []queryPair, skip string, signed []string, secret, region, amzDate, payload string) (sig, scope string) {
	b := append([]byte(r.Method), '\n')
	b, err := appendCanonicalURI(b, r.URL.EscapedPath())
	if err != nil {
		b = append(b, r.URL.EscapedPath()...)
	}
	b = appendCanonicalTail(b, r, pairs, skip, signed, strings.Join(signed, ";"), payload)
	n := len(b)
	scope = amzDate[:8] + "/" + region + "/" + service + "/" + terminator
	b = appendStringToSign(b, amzDate, scope, b[:n])
	key := signingKeys.get(secret, amzDate[:8], region)
	mac := macSHA256(key, b[n:], nil)
	return hex.EncodeToString(mac[:]), scope
}
