package api

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

func TestBucketCannedACL(t *testing.T) {
	cases := []struct {
		acl, grant string
		public     bool
		code       s3err.Code // InternalError (zero) for success
	}{
		{"", "", false, 0},
		{"private", "", false, 0},
		{"public-read", "", true, 0},
		{"public-read", "id=x", false, s3err.InvalidRequest},
		{"public-read-write", "", false, s3err.NotImplemented},
		{"authenticated-read", "", false, s3err.NotImplemented},
		{"bogus", "", false, s3err.InvalidArgument},   // no canned ACL at all
		{"Private", "", false, s3err.InvalidArgument}, // canned ACLs are lowercase
		{"", "uri=http://acs.amazonaws.com/groups/global/AllUsers", false, s3err.NotImplemented},
	}
	for _, c := range cases {
		h := http.Header{}
		if c.acl != "" {
			h.Set("X-Amz-Acl", c.acl)
		}
		if c.grant != "" {
			h.Set("X-Amz-Grant-Read", c.grant)
		}
		public, err := bucketCannedACL(h)
		if c.code == 0 && (err != nil || public != c.public) {
			t.Errorf("bucketCannedACL(%q, %q) = %v, %v; want %v", c.acl, c.grant, public, err, c.public)
		}
		if c.code != 0 && (err == nil || s3err.As(err).Code != c.code) {
			t.Errorf("bucketCannedACL(%q, %q) error %v, want %s", c.acl, c.grant, err, c.code)
		}
	}
}

func TestParseACLBody(t *testing.T) {
	const owner = "0123abcd"
	grant := func(typ, inner, perm string) string {
		return `<Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="` + typ + `">` + inner + `</Grantee><Permission>` + perm + `</Permission></Grant>`
	}
	ownerFull := grant("CanonicalUser", "<ID>"+owner+"</ID>", "FULL_CONTROL")
	everyone := grant("Group", "<URI>"+allUsers+"</URI>", "READ")
	doc := func(ownerID string, grants ...string) string {
		return `<AccessControlPolicy xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Owner><ID>` + ownerID + `</ID></Owner><AccessControlList>` + strings.Join(grants, "") + `</AccessControlList></AccessControlPolicy>`
	}
	cases := []struct {
		name   string
		body   string
		public bool
		code   s3err.Code
	}{
		{"owner only", doc(owner, ownerFull), false, 0},
		{"public", doc(owner, ownerFull, everyone), true, 0},
		{"no owner element", `<AccessControlPolicy><AccessControlList>` + ownerFull + everyone + `</AccessControlList></AccessControlPolicy>`, true, 0},
		{"other owner", doc("ffff", ownerFull), false, s3err.NotImplemented},
		{"owner grant missing", doc(owner, everyone), false, s3err.NotImplemented},
		{"everyone write", doc(owner, ownerFull, grant("Group", "<URI>"+allUsers+"</URI>", "WRITE")), false, s3err.NotImplemented},
		{"authenticated users", doc(owner, ownerFull, grant("Group", "<URI>http://acs.amazonaws.com/groups/global/AuthenticatedUsers</URI>", "READ")), false, s3err.NotImplemented},
		{"email grantee", doc(owner, ownerFull, grant("AmazonCustomerByEmail", "<EmailAddress>a@b.c</EmailAddress>", "READ")), false, s3err.NotImplemented},
		{"owner READ only", doc(owner, grant("CanonicalUser", "<ID>"+owner+"</ID>", "READ")), false, s3err.NotImplemented},
		{"no type", doc(owner, `<Grant><Grantee><ID>x</ID></Grantee><Permission>READ</Permission></Grant>`), false, s3err.MalformedXML},
		{"not xml", `{`, false, s3err.MalformedXML},
	}
	for _, c := range cases {
		public, err := parseACLBody([]byte(c.body), owner, "a bucket")
		if c.code == 0 && (err != nil || public != c.public) {
			t.Errorf("%s: %v, %v; want %v", c.name, public, err, c.public)
		}
		if c.code != 0 && (err == nil || s3err.As(err).Code != c.code) {
			t.Errorf("%s: error %v, want %s", c.name, err, c.code)
		}
	}
}

func TestSizeLimit(t *testing.T) {
	cases := []struct {
		size, lo, hi int64
		code         s3err.Code // 0: accepted
	}{
		{0, 0, 0, 0},
		{1, 0, 0, s3err.EntityTooLarge},
		{10, 10, 10, 0},
		{9, 10, 10, s3err.EntityTooSmall},
		{11, 10, 10, s3err.EntityTooLarge},
		{1 << 20, 1, 1<<20 - 1, s3err.EntityTooLarge},
		{1 << 20, 1, 1 << 20, 0},
	}
	for _, c := range cases {
		l := &sizeLimit{r: bytes.NewReader(make([]byte, c.size)), min: c.lo, max: c.hi}
		n, err := io.Copy(io.Discard, l)
		if c.code == 0 {
			if err != nil || n != c.size {
				t.Errorf("size %d in [%d,%d]: %d, %v", c.size, c.lo, c.hi, n, err)
			}
			continue
		}
		if s3err.As(err) == nil || s3err.As(err).Code != c.code {
			t.Errorf("size %d in [%d,%d]: %v, want %s", c.size, c.lo, c.hi, err, c.code)
		}
		if c.code == s3err.EntityTooLarge && n > c.hi+1 {
			t.Errorf("size %d, max %d: read %d bytes before refusing", c.size, c.hi, n)
		}
	}
}

func TestPostHeaders(t *testing.T) {
	h := postHeaders(map[string]string{
		"content-type": "image/png", "cache-control": "max-age=60", "x-amz-meta-a": "1",
		"acl": "private", "tagging": "<Tagging/>", "key": "k", "policy": "p", "success_action_status": "201",
	})
	want := http.Header{
		"Content-Type": {"image/png"}, "Cache-Control": {"max-age=60"}, "X-Amz-Meta-A": {"1"},
		"X-Amz-Acl": {"private"},
	}
	if len(h) != len(want) {
		t.Fatalf("postHeaders = %v, want %v", h, want)
	}
	for k, v := range want {
		if h.Get(k) != v[0] {
			t.Errorf("%s = %q, want %q", k, h.Get(k), v[0])
		}
	}
}
