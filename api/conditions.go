package api

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/objectgateway/objectgateway/pkg/access"
	"github.com/objectgateway/objectgateway/pkg/objectlock"
	"github.com/objectgateway/objectgateway/pkg/policy"
)

// conditionHeaders are the request headers that are S3 condition keys of
// the same name (s3:x-amz-acl, ...).
var conditionHeaders = []string{
	"X-Amz-Acl", "X-Amz-Grant-Read", "X-Amz-Grant-Write", "X-Amz-Grant-Read-Acp",
	"X-Amz-Grant-Write-Acp", "X-Amz-Grant-Full-Control", "X-Amz-Copy-Source",
	"X-Amz-Metadata-Directive", "X-Amz-Server-Side-Encryption", "X-Amz-Storage-Class",
	"X-Amz-Content-Sha256", "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id",
	"X-Amz-Server-Side-Encryption-Customer-Algorithm", "X-Amz-Website-Redirect-Location",
	"X-Amz-Object-Ownership",
}

// conditionalWriteOps are the operations whose If-Match and If-None-Match
// headers are the condition keys s3:if-match and s3:if-none-match, with
// which a policy enforces conditional writes; on a read they are not.
var conditionalWriteOps = map[string]bool{"PutObject": true, "CompleteMultipartUpload": true, "CopyObject": true}

// objectLockHeaders map the Object Lock headers of a write to their
// condition keys.
var objectLockHeaders = [][2]string{
	{"X-Amz-Object-Lock-Mode", "s3:object-lock-mode"},
	{"X-Amz-Object-Lock-Retain-Until-Date", "s3:object-lock-retain-until-date"},
	{"X-Amz-Object-Lock-Legal-Hold", "s3:object-lock-legal-hold"},
}

// conditionsOf returns the condition keys of a request, for a bucket
// policy to be evaluated against. It is built only for buckets that have
// a policy; a key the request does not carry is absent, and so is every
// key the gateway does not know. The s3:ExistingObjectTag/KEY keys are
// the addressed object's, added by decideObject.
func (s *Server) conditionsOf(r *http.Request, rq *request, c access.Caller) policy.Conditions {
	cs := make(policy.Conditions, 16)
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		cs.Set("aws:SourceIp", host)
	}
	cs.Set("aws:SecureTransport", strconv.FormatBool(r.TLS != nil))
	if v := r.Header.Get("Referer"); v != "" {
		cs.Set("aws:Referer", v)
	}
	if v := r.Header.Get("User-Agent"); v != "" {
		cs.Set("aws:UserAgent", v)
	}
	now := s.now().UTC()
	cs.Set("aws:CurrentTime", now.Format(time.RFC3339))
	cs.Set("aws:EpochTime", strconv.FormatInt(now.Unix(), 10))
	cs.Set("aws:PrincipalType", c.PrincipalType())
	if c.Kind != policy.Anonymous {
		// aws:PrincipalArn is the ARN a Principal element names the caller
		// by (access.Caller.Principal), arn:aws:iam:::user/ACCESSKEY for a
		// user; an anonymous request has none, as in AWS.
		p := rq.principal
		if !rq.principalSet {
			p = c.Principal()
		}
		cs.Set("aws:PrincipalArn", p.ARN)
	}
	if c.Kind == policy.User {
		cs.Set("aws:username", c.AccessKey)
		cs.Set("aws:userid", c.AccessKey)
	}
	if r.TLS != nil {
		cs.Set("s3:TlsVersion", tlsVersion(r.TLS.Version))
	}
	// s3:signatureversion is "AWS" for Signature Version 2 and
	// "AWS4-HMAC-SHA256" for Version 4, as in S3, so that the policy AWS
	// recommends to refuse Version 2 refuses it here too.
	sigVersion := "AWS4-HMAC-SHA256"
	if rq.sigV2 {
		sigVersion = "AWS"
	}
	if rq.auth != nil && !rq.auth.Anonymous {
		cs.Set("s3:signatureversion", sigVersion)
		if rq.auth.Presigned {
			cs.Set("s3:authType", "REST-QUERY-STRING")
		} else {
			cs.Set("s3:authType", "REST-HEADER")
		}
	} else if rq.op == opPostObject && rq.accessKey != "" {
		cs.Set("s3:signatureversion", sigVersion)
		cs.Set("s3:authType", "POST")
	}
	q := rq.queryOf(r)
	for _, k := range []string{"prefix", "delimiter", "max-keys"} {
		if v, ok := q[k]; ok && len(v) > 0 {
			cs.Set("s3:"+k, v[0])
		}
	}
	if v, ok := q["versionId"]; ok && len(v) > 0 {
		cs.Set("s3:versionid", v[0])
	}
	// s3:ObjectCreationOperation tells the writes that make an object,
	// which may carry If-Match and If-None-Match, from the steps of a
	// multipart upload, which cannot (all are s3:PutObject): AWS's policy
	// that enforces conditional writes denies s3:PutObject without
	// s3:if-none-match only where this key is true.
	switch rq.op {
	case "PutObject", "CopyObject", "CompleteMultipartUpload", opPostObject:
		cs.Set("s3:ObjectCreationOperation", "true")
	case "CreateMultipartUpload", "UploadPart", "UploadPartCopy":
		cs.Set("s3:ObjectCreationOperation", "false")
	}
	if conditionalWriteOps[rq.op] {
		for _, h := range []string{"If-Match", "If-None-Match"} {
			if v := r.Header.Get(h); v != "" {
				cs.Set("s3:"+strings.ToLower(h), v)
			}
		}
	}
	for _, h := range conditionHeaders {
		if v := r.Header.Get(h); v != "" {
			cs.Set("s3:"+strings.ToLower(h), v)
		}
	}
	if rq.auth != nil && !rq.auth.Anonymous && rq.auth.PayloadHash != "" {
		// s3:x-amz-content-sha256 is the payload mode the signature was
		// verified with, the header of a Version 4 signature; a presigned
		// URL signs UNSIGNED-PAYLOAD when it names no digest, and a
		// Version 2 signature signs no body (sigv4.Auth.PayloadHash), so
		// a policy that refuses unsigned uploads refuses them too.
		cs.Set("s3:x-amz-content-sha256", rq.auth.PayloadHash)
	}
	for _, h := range objectLockHeaders {
		if v := r.Header.Get(h[0]); v != "" {
			cs.Set(h[1], v)
		}
	}
	if v := r.Header.Get(objectlock.HeaderRetainUntil); v != "" {
		// A date that does not parse gives no key; the handler refuses it.
		if until, err := time.Parse(time.RFC3339, v); err == nil {
			cs.Set("s3:object-lock-remaining-retention-days", remainingRetentionDays(until, now))
		}
	}
	if e := rq.early; e != nil && rq.op == "PutObjectTagging" {
		// The tag set of its body (readBodyFirst).
		if e.err == nil {
			keys := make([]string, 0, len(e.tags))
			for _, kv := range e.tags {
				keys = append(keys, kv.Key)
				cs.Set("s3:RequestObjectTag/"+kv.Key, kv.Value)
			}
			cs.Set("s3:RequestObjectTagKeys", keys...)
		}
	} else if v := r.Header.Get("X-Amz-Tagging"); v != "" {
		if tags, err := url.ParseQuery(v); err == nil {
			keys := make([]string, 0, len(tags))
			for k, vs := range tags {
				keys = append(keys, k)
				cs.Set("s3:RequestObjectTag/"+k, vs...)
			}
			cs.Set("s3:RequestObjectTagKeys", keys...)
		}
	}
	if e := rq.early; e != nil && e.err == nil {
		// The retention or legal hold of the body (readBodyFirst).
		switch rq.op {
		case "PutObjectRetention":
			if e.retention.Mode != "" {
				cs.Set("s3:object-lock-mode", string(e.retention.Mode))
			}
			if !e.retention.Until.IsZero() {
				cs.Set("s3:object-lock-retain-until-date", e.retention.Until.UTC().Format(time.RFC3339))
				cs.Set("s3:object-lock-remaining-retention-days", remainingRetentionDays(e.retention.Until, now))
			}
		case "PutObjectLegalHold":
			status := "OFF"
			if e.hold {
				status = "ON"
			}
			cs.Set("s3:object-lock-legal-hold", status)
		}
	}
	return cs
}

// remainingRetentionDays is the value of s3:object-lock-remaining-retention-days
// for a requested retain-until date: the days from now until it, a part of
// a day counted as a whole one, so that a policy that denies more than N
// days (NumericGreaterThan) refuses N days and a minute; zero for a date
// that is not in the future, which the handler refuses.
func remainingRetentionDays(until, now time.Time) string {
	d := until.Sub(now)
	if d <= 0 {
		return "0"
	}
	const day = 24 * time.Hour
	return strconv.FormatInt(int64((d+day-1)/day), 10)
}

// tlsVersion is a TLS version as s3:TlsVersion spells it ("1.2").
func tlsVersion(v uint16) string {
	switch v {
	case tls.VersionTLS10:
		return "1.0"
	case tls.VersionTLS11:
		return "1.1"
	case tls.VersionTLS12:
		return "1.2"
	case tls.VersionTLS13:
		return "1.3"
	}
	return ""
}
