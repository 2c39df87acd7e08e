package sigv4

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// The x-amz-content-sha256 values that name a payload mode rather than a
// digest.
const (
	UnsignedPayload          = "UNSIGNED-PAYLOAD"
	StreamingPayload         = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
	StreamingPayloadTrailer  = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
	StreamingUnsignedTrailer = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
)

const (
	algorithm  = "AWS4-HMAC-SHA256"
	service    = "s3"
	terminator = "aws4_request"
	amzDateFmt = "20060102T150405Z"
	// maxExpires is S3's limit on X-Amz-Expires: seven days.
	maxExpires = 7 * 24 * 60 * 60
)

// Credentials looks up the secret key of an access key id.
type Credentials interface {
	SecretKey(accessKeyID string) (secret string, ok bool)
}

// Options configures a Verifier.
type Options struct {
	// Region is the region requests must be scoped to; "" means
	// "us-east-1", the region every SDK defaults to.
	Region string
	// Credentials resolves access keys; nil rejects every access key.
	Credentials Credentials
	// Now is the clock; nil means time.Now. Tests set it to check skew and
	// expiry without sleeping.
	Now func() time.Time
	// MaxSkew is how far a header-signed request's time may be from Now;
	// 0 means 15 minutes, S3's limit.
	MaxSkew time.Duration
}

// Verifier authenticates requests. It is safe for concurrent use.
type Verifier struct {
	o    Options
	keys keyCache
	// bufs holds the buffers canonical requests are built in.
	bufs sync.Pool
}

// NewVerifier returns a Verifier with o's defaults filled in.
func NewVerifier(o Options) *Verifier {
	if o.Region == "" {
		o.Region = "us-east-1"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxSkew <= 0 {
		o.MaxSkew = 15 * time.Minute
	}
	return &Verifier{o: o}
}

// Auth is the outcome of a successful Verify.
type Auth struct {
	// Anonymous is set when the request carries no authentication at all;
	// the caller decides whether to serve it (usually AccessDenied).
	Anonymous bool
	// AccessKeyID identifies the authenticated principal.
	AccessKeyID string
	// Presigned is set for query-string (presigned URL) authentication.
	Presigned bool
	// PayloadHash is x-amz-content-sha256 as sent: UnsignedPayload, one of
	// the streaming modes, or 64 hex digits the caller must verify against
	// the body. A presigned request without it reports UnsignedPayload.
	PayloadHash string

	key     []byte // signing key, for chunk signatures
	amzDate string // the request time as signed, 20060102T150405Z
	scope   string // date/region/s3/aws4_request
	seed    string // hex signature of the request, the chunk chain's seed
}

// authParams is what either authentication style carries.
type authParams struct {
	presigned     bool
	credential    string
	signedHeaders string
	signature     string
	amzDate       string
	t             time.Time
	payloadHash   string
	skipQuery     string // the query key excluded from the canonical query
}

// Verify authenticates r from its method, headers, raw URL and Host; it
// never reads r.Body. It returns an Auth with Anonymous set when r carries
// neither an Authorization header nor an X-Amz-Algorithm query parameter.
// Every error is an *s3err.Error.
func (v *Verifier) Verify(r *http.Request) (*Auth, error) {
	authz := r.Header.Get("Authorization")
	pairs, err := parseQuery(rawQuery(r))
	if err != nil {
		return nil, err
	}
	var presigned, v2Query bool
	for _, p := range pairs {
		switch p.k {
		case "X-Amz-Algorithm":
			presigned = true
		case "AWSAccessKeyId", "Signature":
			v2Query = true
		}
	}
	switch {
	case authz != "" && (presigned || v2Query):
		return nil, s3err.Newf(s3err.InvalidArgument,
			"Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified")
	case authz != "":
		p, err := v.parseHeader(r, authz)
		if err != nil {
			return nil, err
		}
		return v.verify(r, pairs, p)
	case presigned:
		p, err := v.parseQuery(r, pairs)
		if err != nil {
			return nil, err
		}
		return v.verify(r, pairs, p)
	case v2Query:
		return nil, RefuseV2()
	}
	ph := r.Header.Get("X-Amz-Content-Sha256")
	if ph == "" {
		ph = UnsignedPayload
	}
	return &Auth{Anonymous: true, PayloadHash: ph}, nil
}

// parseHeader parses an Authorization header. It tolerates the spacing
// variations SDKs produce: components separated by ",", ", " or spaces.
func (v *Verifier) parseHeader(r *http.Request, authz string) (authParams, error) {
	rest, ok := strings.CutPrefix(authz, algorithm)
	if !ok || (rest != "" && rest[0] != ' ') {
		if strings.HasPrefix(authz, "AWS ") {
			return authParams{}, RefuseV2()
		}
		return authParams{}, s3err.Newf(s3err.InvalidArgument, "Unsupported Authorization Type")
	}
	p := authParams{}
	for _, f := range strings.FieldsFunc(rest, func(c rune) bool { return c == ',' || c == ' ' }) {
		k, val, _ := strings.Cut(f, "=")
		var dst *string
		switch k {
		case "Credential":
			dst = &p.credential
		case "SignedHeaders":
			dst = &p.signedHeaders
		case "Signature":
			dst = &p.signature
		default:
			return authParams{}, headerMalformed("the authorization component \"" + f + "\" is malformed.")
		}
		if *dst != "" || val == "" {
			return authParams{}, headerMalformed("the authorization component \"" + k + "\" is malformed.")
		}
		*dst = val
	}
	if p.credential == "" || p.signedHeaders == "" || p.signature == "" {
		return authParams{}, headerMalformed("the authorization header requires three components: Credential, SignedHeaders, and Signature.")
	}

	p.amzDate = r.Header.Get("X-Amz-Date")
	if p.amzDate != "" {
		t, err := parseAmzDate(p.amzDate)
		if err != nil {
			return authParams{}, missingDate()
		}
		p.t = t
	} else {
		t, err := http.ParseTime(r.Header.Get("Date"))
		if err != nil {
			return authParams{}, missingDate()
		}
		p.t = t.UTC()
		p.amzDate = p.t.Format(amzDateFmt)
	}

	p.payloadHash = r.Header.Get("X-Amz-Content-Sha256")
	if p.payloadHash == "" {
		return authParams{}, s3err.Newf(s3err.InvalidRequest, "Missing required header for this request: x-amz-content-sha256")
	}
	if err := checkPayloadHash(p.payloadHash); err != nil {
		return authParams{}, err
	}
	return p, nil
}

// parseQuery parses presigned-URL parameters.
func (v *Verifier) parseQuery(r *http.Request, pairs []queryPair) (authParams, error) {
	get := func(k string) string {
		for _, p := range pairs {
			if p.k == k {
				return p.v
			}
		}
		return ""
	}
	if a := get("X-Amz-Algorithm"); a != algorithm {
		return authParams{}, s3err.Newf(s3err.AuthorizationQueryParametersError, "X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"")
	}
	p := authParams{
		presigned:     true,
		credential:    get("X-Amz-Credential"),
		signedHeaders: get("X-Amz-SignedHeaders"),
		signature:     get("X-Amz-Signature"),
		amzDate:       get("X-Amz-Date"),
		skipQuery:     "X-Amz-Signature",
	}
	expires := get("X-Amz-Expires")
	if p.credential == "" || p.signedHeaders == "" || p.signature == "" || p.amzDate == "" || expires == "" {
		return authParams{}, s3err.Newf(s3err.AuthorizationQueryParametersError,
			"Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.")
	}
	t, err := parseAmzDate(p.amzDate)
	if err != nil {
		return authParams{}, s3err.Newf(s3err.AuthorizationQueryParametersError,
			"X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"")
	}
	p.t = t
	exp, err := strconv.ParseInt(expires, 10, 64)
	switch {
	case err != nil:
		return authParams{}, s3err.Newf(s3err.AuthorizationQueryParametersError, "X-Amz-Expires should be a number")
	case exp < 1:
		return authParams{}, s3err.Newf(s3err.AuthorizationQueryParametersError, "X-Amz-Expires must be non-negative")
	case exp > maxExpires:
		return authParams{}, s3err.Newf(s3err.AuthorizationQueryParametersError,
			"X-Amz-Expires must be less than a week (in seconds) that is 604800")
	}
	now := v.o.Now()
	if t.After(now.Add(v.o.MaxSkew)) {
		return authParams{}, s3err.Newf(s3err.AccessDenied, "Request is not valid yet")
	}
	if end := t.Add(time.Duration(exp) * time.Second); now.After(end) {
		return authParams{}, s3err.Newf(s3err.AccessDenied, "Request has expired").
			With("X-Amz-Expires", expires).
			With("Expires", end.UTC().Format(time.RFC3339)).
			With("ServerTime", now.UTC().Format(time.RFC3339))
	}

	// A presigned URL normally signs no payload; a client may still send
	// the hash as a hoisted query parameter or a header.
	p.payloadHash = get("X-Amz-Content-Sha256")
	if p.payloadHash == "" {
		p.payloadHash = r.Header.Get("X-Amz-Content-Sha256")
	}
	if p.payloadHash == "" {
		p.payloadHash = UnsignedPayload
	}
	if err := checkPayloadHash(p.payloadHash); err != nil {
		return authParams{}, err
	}
	return p, nil
}

// verify checks the credential scope, time and signature common to both
// authentication styles.
func (v *Verifier) verify(r *http.Request, pairs []queryPair, p authParams) (*Auth, error) {
	parts, ok := splitCredential(p.credential)
	if !ok {
		return nil, scopeError(p.presigned, "the Credential is mal-formed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".")
	}
	accessKey, date, region, svc, term := parts[0], parts[1], parts[2], parts[3], parts[4]
	if date != p.amzDate[:8] {
		return nil, scopeError(p.presigned, "Invalid credential date \""+date+"\". This date is not the same as X-Amz-Date: \""+p.amzDate[:8]+"\".")
	}
	if region != v.o.Region {
		return nil, scopeError(p.presigned, "the region '"+region+"' is wrong; expecting '"+v.o.Region+"'").With("Region", v.o.Region)
	}
	if svc != service {
		return nil, scopeError(p.presigned, "incorrect service \""+svc+"\". This endpoint belongs to \"s3\".")
	}
	if term != terminator {
		return nil, scopeError(p.presigned, "incorrect terminal \""+term+"\". This endpoint uses \"aws4_request\".")
	}
	// The credential after the access key is now exactly
	// date/region/s3/aws4_request.
	scope := p.credential[len(accessKey)+1:]

	var signedArr [16]string
	signed := appendSplit(signedArr[:0], p.signedHeaders, ';')
	if err := checkSignedHeaders(r, signed, p.presigned); err != nil {
		return nil, err
	}

	var secret string
	ok = false
	if v.o.Credentials != nil {
		secret, ok = v.o.Credentials.SecretKey(accessKey)
	}
	if !ok {
		return nil, s3err.New(s3err.InvalidAccessKeyID).With("AWSAccessKeyId", accessKey)
	}

	if !p.presigned {
		now := v.o.Now()
		if d := now.Sub(p.t); d > v.o.MaxSkew || d < -v.o.MaxSkew {
			return nil, s3err.New(s3err.RequestTimeTooSkewed).
				With("RequestTime", p.amzDate).
				With("ServerTime", now.UTC().Format(time.RFC3339)).
				With("MaxAllowedSkewMilliseconds", strconv.FormatInt(v.o.MaxSkew.Milliseconds(), 10))
		}
	}

	// The canonical request and the string to sign are built in one
	// pooled buffer: canonical is b[:n], the string to sign b[n:].
	bp := v.getBuf()
	defer v.bufs.Put(bp)
	b, err := appendCanonicalURI(append(append((*bp)[:0], r.Method...), '\n'), rawPath(r))
	if err != nil {
		return nil, err
	}
	b = appendCanonicalTail(b, r, pairs, p.skipQuery, signed, p.signedHeaders, p.payloadHash)
	n := len(b)
	b = appendStringToSign(b, p.amzDate, scope, b[:n])
	*bp = b
	canonical, sts := b[:n], b[n:]

	key := v.keys.get(secret, date, region)
	var scratch [256]byte
	mac := macSHA256(key, sts, scratch[:0])
	var want, got [2 * sha256.Size]byte
	hex.Encode(want[:], mac[:])
	// The signature is compared in constant time as the lowercase hex
	// string it must be, as AWS does: an uppercase spelling of the right
	// digest is a different signature.
	if len(p.signature) != len(want) || !hmac.Equal(got[:copy(got[:], p.signature)], want[:]) {
		return nil, s3err.New(s3err.SignatureDoesNotMatch).
			With("AWSAccessKeyId", accessKey).
			With("StringToSign", string(sts)).
			With("CanonicalRequest", string(canonical))
	}
	return &Auth{
		AccessKeyID: accessKey,
		Presigned:   p.presigned,
		PayloadHash: p.payloadHash,
		key:         key,
		amzDate:     p.amzDate,
		scope:       scope,
		// The signature matched want byte for byte.
		seed: p.signature,
	}, nil
}

// getBuf returns a buffer for a canonical request from the Verifier's
// pool.
func (v *Verifier) getBuf() *[]byte {
	if bp, ok := v.bufs.Get().(*[]byte); ok {
		return bp
	}
	b := make([]byte, 0, 1024)
	return &b
}

// splitCredential splits <access key>/<date>/<region>/<service>/<terminal>
// into exactly five parts, as strings.Split would; ok is false for any
// other number of parts or an empty access key.
func splitCredential(c string) (parts [5]string, ok bool) {
	for i := range 4 {
		j := strings.IndexByte(c, '/')
		if j < 0 {
			return parts, false
		}
		parts[i], c = c[:j], c[j+1:]
	}
	if strings.IndexByte(c, '/') >= 0 {
		return parts, false
	}
	parts[4] = c
	return parts, parts[0] != ""
}

// appendStringToSign appends the string to sign of a canonical request.
func appendStringToSign(b []byte, amzDate, scope string, canonical []byte) []byte {
	sum := sha256.Sum256(canonical)
	b = append(b, algorithm+"\n"...)
	b = append(b, amzDate...)
	b = append(b, '\n')
	b = append(b, scope...)
	b = append(b, '\n')
	return hex.AppendEncode(b, sum[:])
}

// parseAmzDate is time.Parse(amzDateFmt, s). The form clients send,
// "YYYYMMDDTHHMMSSZ" with a valid date and time, is parsed directly;
// anything else goes to time.Parse, so the odd inputs it accepts and the
// errors it returns are its own. FuzzParseAmzDate checks the two agree.
func parseAmzDate(s string) (time.Time, error) {
	if len(s) == len(amzDateFmt) && s[8] == 'T' && s[15] == 'Z' {
		num := func(i, j int) int {
			n := 0
			for ; i < j; i++ {
				c := s[i]
				if c < '0' || c > '9' {
					return -1
				}
				n = n*10 + int(c-'0')
			}
			return n
		}
		year, month, day := num(0, 4), num(4, 6), num(6, 8)
		hour, minute, sec := num(9, 11), num(11, 13), num(13, 15)
		if year >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(time.Month(month), year) &&
			hour >= 0 && hour < 24 && minute >= 0 && minute < 60 && sec >= 0 && sec < 60 {
			return time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC), nil
		}
	}
	return time.Parse(amzDateFmt, s)
}

// daysIn is the number of days of month m in year.
func daysIn(m time.Month, year int) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// listedTwice reports whether a name appears twice in signed: in one pass
// when the names are sorted, as signers send them.
func listedTwice(signed []string) bool {
	ascending := true
	for i := 1; i < len(signed) && ascending; i++ {
		ascending = signed[i-1] < signed[i]
	}
	if ascending {
		return false
	}
	sorted := slices.Clone(signed)
	slices.Sort(sorted)
	return len(slices.Compact(sorted)) != len(signed)
}

// checkSignedHeaders enforces S3's rules on SignedHeaders: host must be
// signed, and every x-amz-* header present must be signed, so that a holder
// of a signature cannot add, say, x-amz-acl to a request. A presigned
// request may carry an unsigned x-amz-content-sha256, which only asks for
// more verification.
func checkSignedHeaders(r *http.Request, signed []string, presigned bool) error {
	host := false
	for _, h := range signed {
		if h == "" {
			return scopeError(presigned, "the SignedHeaders parameter is malformed.")
		}
		if h == "host" {
			host = true
		}
	}
	if !host {
		if presigned {
			return s3err.Newf(s3err.AuthorizationQueryParametersError, "Error parsing the X-Amz-SignedHeaders parameter; host must be signed.")
		}
		return headerMalformed("the SignedHeaders must include host.")
	}
	if listedTwice(signed) {
		// The canonical request holds a signed header's values once for
		// each time SignedHeaders lists it: a header of 30 KB listed
		// 7,000 times in 58 KB of headers made a canonical request of
		// 210 MB, built (and answered in SignatureDoesNotMatch) before
		// the signature is checked, by anyone who knows an access key.
		// A signer lists each header once, its values joined.
		return scopeError(presigned, "the SignedHeaders parameter is malformed: a header is listed twice.")
	}
	for name := range r.Header {
		// The prefix is checked before lowering the name, which would
		// allocate for every ordinary header.
		if len(name) < len("x-amz-") || !strings.EqualFold(name[:len("x-amz-")], "x-amz-") {
			continue
		}
		lname := strings.ToLower(name)
		if presigned && lname == "x-amz-content-sha256" {
			continue
		}
		found := false
		for _, h := range signed {
			if h == lname {
				found = true
				break
			}
		}
		if !found {
			return s3err.Newf(s3err.AccessDenied, "There were headers present in the request which were not signed").
				With("HeadersNotSigned", lname)
		}
	}
	return nil
}

// checkPayloadHash accepts the payload modes this gateway implements and
// 64-hex digests.
func checkPayloadHash(v string) error {
	switch v {
	case UnsignedPayload, StreamingPayload, StreamingPayloadTrailer, StreamingUnsignedTrailer:
		return nil
	}
	if len(v) == 64 {
		if _, err := hex.DecodeString(v); err == nil {
			return nil
		}
	}
	return s3err.Newf(s3err.InvalidArgument,
		"x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER or a valid sha256 value.").
		With("ArgumentName", "x-amz-content-sha256").
		With("ArgumentValue", v)
}

// RefuseV2 is S3's answer to a request or POST upload signed with
// Signature Version 2 in a region that accepts only Version 4.
func RefuseV2() *s3err.Error {
	return s3err.Newf(s3err.InvalidRequest, "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.")
}

func headerMalformed(detail string) *s3err.Error {
	return s3err.Newf(s3err.AuthorizationHeaderMalformed, "The authorization header is malformed; %s", detail)
}

// scopeError reports a credential problem with the code and wording S3
// uses for the authentication style at hand.
func scopeError(presigned bool, detail string) *s3err.Error {
	if presigned {
		return s3err.Newf(s3err.AuthorizationQueryParametersError, "Error parsing the X-Amz-Credential parameter; %s", detail)
	}
	return headerMalformed(detail)
}

func missingDate() *s3err.Error {
	return s3err.Newf(s3err.AccessDenied, "AWS authentication requires a valid Date or x-amz-date header")
}
