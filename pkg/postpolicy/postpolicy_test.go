package postpolicy

import (
	"strings"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const doc = `{ "expiration": "2026-03-01T13:00:00.000Z",
  "conditions": [
    {"bucket": "uploads"},
    ["starts-with", "$key", "user/eric/"],
    {"acl": "private"},
    {"success_action_status": "201"},
    ["starts-with", "$Content-Type", "image/"],
    ["eq", "$x-amz-meta-uuid", "14365123651274"],
    ["starts-with", "$x-amz-meta-tag", ""],
    ["content-length-range", 1, "1048576"],
    {"x-amz-credential": "AKID/20260301/us-east-1/s3/aws4_request"},
    {"x-amz-algorithm": "AWS4-HMAC-SHA256"},
    {"x-amz-date": "20260301T120000Z"}
  ]}`

func form() map[string]string {
	return map[string]string{
		"bucket":                "uploads",
		"key":                   "user/eric/${filename}",
		"acl":                   "private",
		"success_action_status": "201",
		"content-type":          "image/jpeg",
		"x-amz-meta-uuid":       "14365123651274",
		"x-amz-meta-tag":        "anything",
		"x-amz-credential":      "AKID/20260301/us-east-1/s3/aws4_request",
		"x-amz-algorithm":       "AWS4-HMAC-SHA256",
		"x-amz-date":            "20260301T120000Z",
		"x-amz-signature":       "00",
		"policy":                "base64",
		"x-ignore-submit":       "Upload",
	}
}

func TestCheck(t *testing.T) {
	p, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi, ok := p.Range(); !ok || lo != 1 || hi != 1048576 {
		t.Fatalf("Range = %d, %d, %v", lo, hi, ok)
	}
	cases := []struct {
		name   string
		edit   func(map[string]string)
		at     time.Time
		errMsg string // "" for success
	}{
		{"valid", func(map[string]string) {}, now, ""},
		{"content types list", func(f map[string]string) { f["content-type"] = "image/png, image/gif" }, now, ""},
		{"expired", func(map[string]string) {}, now.Add(time.Hour), "Policy expired."},
		{"key outside prefix", func(f map[string]string) { f["key"] = "user/bob/x" }, now, `Policy Condition failed: ["starts-with", "$key", "user/eric/"]`},
		{"wrong bucket", func(f map[string]string) { f["bucket"] = "other" }, now, `Policy Condition failed: ["eq", "$bucket", "uploads"]`},
		{"wrong eq", func(f map[string]string) { f["x-amz-meta-uuid"] = "1" }, now, "x-amz-meta-uuid"},
		{"missing field", func(f map[string]string) { delete(f, "acl") }, now, `["eq", "$acl", "private"]`},
		{"bad content type", func(f map[string]string) { f["content-type"] = "text/html" }, now, "$Content-Type"},
		{"extra fields", func(f map[string]string) { f["x-amz-meta-other"] = "1"; f["cache-control"] = "x" }, now, "Extra input fields: cache-control, x-amz-meta-other"},
	}
	for _, c := range cases {
		f := form()
		c.edit(f)
		err := p.Check(c.at, f, "bucket")
		if c.errMsg == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		e := s3err.As(err)
		if err == nil || e.Code != s3err.AccessDenied || !strings.Contains(e.Text(), c.errMsg) {
			t.Errorf("%s: got %v, want AccessDenied containing %q", c.name, err, c.errMsg)
		}
		if err != nil && !strings.HasPrefix(e.Text(), "Invalid according to Policy: ") {
			t.Errorf("%s: message %q", c.name, e.Text())
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, d := range []string{
		``,
		`[]`,
		`{"conditions":[]}`,
		`{"expiration":"tomorrow","conditions":[]}`,
		`{"expiration":"2026-03-01T13:00:00Z"}`,
		`{"expiration":"2026-03-01T13:00:00Z","conditions":[],"extra":1}`,
		`null`,
		// The keys are case-sensitive, as in S3 (s3-tests'
		// test_post_object_condition_is_case_sensitive and
		// test_post_object_expires_is_case_sensitive).
		`{"expiration":"2026-03-01T13:00:00Z","CONDITIONS":[]}`,
		`{"EXPIRATION":"2026-03-01T13:00:00Z","conditions":[]}`,
		`{"Expiration":"2026-03-01T13:00:00Z","Conditions":[]}`,
		`{"expiration":"2026-03-01T13:00:00Z","conditions":[]} x`,
		`{"expiration":"2026-03-01T13:00:00Z","conditions":[["eq","$key"]]}`,
		`{"expiration":"2026-03-01T13:00:00Z","conditions":[["eq","key","v"]]}`,
		`{"expiration":"2026-03-01T13:00:00Z","conditions":[["in","$key","v"]]}`,
		`{"expiration":"2026-03-01T13:00:00Z","conditions":[["content-length-range",10,1]]}`,
		`{"expiration":"2026-03-01T13:00:00Z","conditions":[["content-length-range",-1,1]]}`,
		`{"expiration":"2026-03-01T13:00:00Z","conditions":[["content-length-range","a",1]]}`,
		`{"expiration":"2026-03-01T13:00:00Z","conditions":[{"a":"b","c":"d"}]}`,
		`{"expiration":"2026-03-01T13:00:00Z","conditions":[{"a":1}]}`,
		`{"expiration":"2026-03-01T13:00:00Z","conditions":[5]}`,
	} {
		if _, err := Parse([]byte(d)); s3err.As(err) == nil || s3err.As(err).Code != s3err.InvalidPolicyDocument {
			t.Errorf("Parse(%s) = %v, want InvalidPolicyDocument", d, err)
		}
	}
	p, err := Parse([]byte(`{"expiration":"2026-03-01T13:00:00Z","conditions":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := p.Range(); ok {
		t.Error("no content-length-range, Range ok")
	}
	if err := p.Check(now, map[string]string{"bucket": "b", "file": "", "policy": "p"}, "bucket"); err != nil {
		t.Errorf("exempt fields: %v", err)
	}
}
