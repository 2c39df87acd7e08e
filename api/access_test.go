package api

import (
	"bytes"
	"github.com/objectgateway/objectgateway/pkg/access"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// emailUsers resolves one email, for the ACL tests.
type emailUsers map[string]string

func (e emailUsers) SecretKey(string) (string, bool) { return "", false }
func (e emailUsers) UserByEmail(email string) (string, bool) {
	k, ok := e[email]
	return k, ok
}

// TestHeaderACL reads x-amz-acl and x-amz-grant-* headers into the stored
// form of the ACL they ask for, and refuses what S3 refuses.
func TestHeaderACL(t *testing.T) {
	s := &Server{opts: Options{Credentials: emailUsers{"bob@example.com": "AKIDBOB"}}}
	alice, bob := access.CanonicalID("AKIDALICE"), access.CanonicalID("AKIDBOB")
	cases := []struct {
		name    string
		headers map[string]string
		want    string     // stored form, for success
		code    s3err.Code // InternalError (zero) for success
	}{
		{"none", nil, "", 0},
		{"private", map[string]string{"X-Amz-Acl": "private"}, "Fu" + alice, 0},
		{"public-read", map[string]string{"X-Amz-Acl": "public-read"}, "Fu" + alice + "\nRg" + access.AllUsers, 0},
		{"public-read-write", map[string]string{"X-Amz-Acl": "public-read-write"}, "Fu" + alice + "\nRg" + access.AllUsers + "\nWg" + access.AllUsers, 0},
		{"authenticated-read", map[string]string{"X-Amz-Acl": "authenticated-read"}, "Fu" + alice + "\nRg" + access.AuthenticatedUsers, 0},
		{"aws-exec-read", map[string]string{"X-Amz-Acl": "aws-exec-read"}, "Fu" + alice, 0},
		{"bucket-owner-read", map[string]string{"X-Amz-Acl": "bucket-owner-read"}, "Fu" + alice + "\nRu" + bob, 0},
		{"bucket-owner-full-control", map[string]string{"X-Amz-Acl": "bucket-owner-full-control"}, "Fu" + alice + "\nFu" + bob, 0},
		{"log-delivery-write", map[string]string{"X-Amz-Acl": "log-delivery-write"}, "Fu" + alice + "\nWg" + access.LogDelivery + "\nrg" + access.LogDelivery, 0},
		{"grants", map[string]string{"X-Amz-Grant-Read": `id="` + bob + `", uri="` + access.AllUsers + `"`, "X-Amz-Grant-Write-Acp": `emailAddress="bob@example.com"`},
			"Ru" + bob + "\nRg" + access.AllUsers + "\nwu" + bob, 0},
		{"full control", map[string]string{"X-Amz-Grant-Full-Control": "id=" + bob}, "Fu" + bob, 0},
		{"canned and grants", map[string]string{"X-Amz-Acl": "public-read", "X-Amz-Grant-Read": "id=" + bob}, "", s3err.InvalidRequest},
		{"unknown canned", map[string]string{"X-Amz-Acl": "bogus"}, "", s3err.InvalidArgument},
		{"canned is lowercase", map[string]string{"X-Amz-Acl": "Private"}, "", s3err.InvalidArgument},
		{"bad id", map[string]string{"X-Amz-Grant-Read": `id="nobody"`}, "", s3err.InvalidArgument},
		{"bad uri", map[string]string{"X-Amz-Grant-Read": `uri="http://example.com/g"`}, "", s3err.InvalidArgument},
		{"no grantee type", map[string]string{"X-Amz-Grant-Read": bob}, "", s3err.InvalidArgument},
		{"unknown grantee type", map[string]string{"X-Amz-Grant-Read": "user=" + bob}, "", s3err.InvalidArgument},
		{"empty grantee", map[string]string{"X-Amz-Grant-Read": `id=""`}, "", s3err.InvalidArgument},
		{"unknown email", map[string]string{"X-Amz-Grant-Read": `emailAddress="carol@example.com"`}, "", s3err.UnresolvableGrantByEmailAddress},
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.headers {
			h.Set(k, v)
		}
		a, _, err := s.headerACL(h, "AKIDALICE", "AKIDBOB")
		if c.code != 0 {
			if err == nil || s3err.As(err).Code != c.code {
				t.Errorf("%s: error %v, want %s", c.name, err, c.code)
			}
			continue
		}
		got := ""
		if a != nil {
			got = a.String()
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

// TestHeaderACLLimit refuses more than 100 grants, S3's limit.
func TestHeaderACLLimit(t *testing.T) {
	s := &Server{}
	ids := make([]string, 0, 101)
	for i := range 101 {
		ids = append(ids, "id="+access.CanonicalID(strconv.Itoa(i)))
	}
	h := http.Header{"X-Amz-Grant-Read": {strings.Join(ids[:100], ",")}}
	if _, _, err := s.headerACL(h, "AKIDALICE", "AKIDALICE"); err != nil {
		t.Fatalf("100 grants: %v", err)
	}
	h.Set("X-Amz-Grant-Read", strings.Join(ids, ","))
	if _, _, err := s.headerACL(h, "AKIDALICE", "AKIDALICE"); err == nil || s3err.As(err).Code != s3err.MalformedACLError {
		t.Fatalf("101 grants: %v, want MalformedACLError", err)
	}
}

func TestParseACLBody(t *testing.T) {
	s := &Server{opts: Options{Credentials: emailUsers{"bob@example.com": "AKIDBOB"}}}
	owner, bob := access.CanonicalID("AKIDALICE"), access.CanonicalID("AKIDBOB")
	grant := func(typ, inner, perm string) string {
		return `<Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="` + typ + `">` + inner + `</Grantee><Permission>` + perm + `</Permission></Grant>`
	}
	ownerFull := grant("CanonicalUser", "<ID>"+owner+"</ID>", "FULL_CONTROL")
	everyone := grant("Group", "<URI>"+access.AllUsers+"</URI>", "READ")
	doc := func(ownerID string, grants ...string) string {
		return `<AccessControlPolicy xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Owner><ID>` + ownerID + `</ID></Owner><AccessControlList>` + strings.Join(grants, "") + `</AccessControlList></AccessControlPolicy>`
	}
	cases := []struct {
		name string
		body string
		want string
		code s3err.Code
	}{
		{"owner only", doc(owner, ownerFull), "Fu" + owner, 0},
		{"public", doc(owner, ownerFull, everyone), "Fu" + owner + "\nRg" + access.AllUsers, 0},
		{"no owner element", `<AccessControlPolicy><AccessControlList>` + ownerFull + everyone + `</AccessControlList></AccessControlPolicy>`, "Fu" + owner + "\nRg" + access.AllUsers, 0},
		{"owner grant dropped", doc(owner, everyone), "Rg" + access.AllUsers, 0},
		{"no grants", doc(owner), access.NoGrants, 0},
		{"authenticated users write", doc(owner, grant("Group", "<URI>"+access.AuthenticatedUsers+"</URI>", "WRITE")), "Wg" + access.AuthenticatedUsers, 0},
		{"email grantee", doc(owner, grant("AmazonCustomerByEmail", "<EmailAddress>bob@example.com</EmailAddress>", "READ_ACP")), "ru" + bob, 0},
		{"user grantee", doc(owner, grant("CanonicalUser", "<ID>"+bob+"</ID>", "WRITE_ACP")), "wu" + bob, 0},
		{"other owner", doc(bob, ownerFull), "", s3err.AccessDenied},
		{"unknown email", doc(owner, grant("AmazonCustomerByEmail", "<EmailAddress>x@example.com</EmailAddress>", "READ")), "", s3err.UnresolvableGrantByEmailAddress},
		{"bad permission", doc(owner, grant("CanonicalUser", "<ID>"+owner+"</ID>", "EVERYTHING")), "", s3err.MalformedACLError},
		{"bad id", doc(owner, grant("CanonicalUser", "<ID>x</ID>", "READ")), "", s3err.InvalidArgument},
		{"bad group", doc(owner, grant("Group", "<URI>http://example.com/</URI>", "READ")), "", s3err.InvalidArgument},
		{"no type", doc(owner, `<Grant><Grantee><ID>x</ID></Grantee><Permission>READ</Permission></Grant>`), "", s3err.MalformedACLError},
		{"not xml", `{`, "", s3err.MalformedXML},
	}
	for _, c := range cases {
		a, err := s.parseACLBody([]byte(c.body), owner)
		if c.code != 0 {
			if err == nil || s3err.As(err).Code != c.code {
				t.Errorf("%s: error %v, want %s", c.name, err, c.code)
			}
			continue
		}
		if err != nil || a.String() != c.want {
			t.Errorf("%s: %v, %v; want %q", c.name, a, err, c.want)
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
