package policy

import (
	"fmt"
	"testing"
)

// condPolicy is a policy whose one statement allows everyone everything
// on the bucket's objects when cond (a Condition element's JSON) holds.
// The action is a wildcard so that S3's check of which keys apply to
// which actions lets every key through.
func condPolicy(t *testing.T, cond string) *Policy {
	t.Helper()
	return mustParse(t, doc(`{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"arn:aws:s3:::site/*","Condition":`+cond+`}`))
}

// absent marks a case whose request lacks the key.
const absent = "\x00absent"

func TestConditionOperators(t *testing.T) {
	cases := []struct {
		op, key, value string // value is the policy's JSON value
		got            []string
		want           bool
	}{
		// String operators.
		{"StringEquals", "aws:Referer", `"a"`, []string{"a"}, true},
		{"StringEquals", "aws:Referer", `"a"`, []string{"A"}, false},
		{"StringEquals", "aws:Referer", `"a*"`, []string{"abc"}, false},
		{"StringEquals", "aws:Referer", `"a*"`, []string{"a*"}, true},
		{"StringEquals", "aws:Referer", `["x","a"]`, []string{"a"}, true},
		{"StringEquals", "aws:Referer", `"a"`, []string{absent}, false},
		{"StringNotEquals", "aws:Referer", `"a"`, []string{"b"}, true},
		{"StringNotEquals", "aws:Referer", `"a"`, []string{"a"}, false},
		{"StringNotEquals", "aws:Referer", `["a","b"]`, []string{"b"}, false},
		{"StringNotEquals", "aws:Referer", `"a"`, []string{absent}, true},
		{"StringEqualsIgnoreCase", "aws:Referer", `"Hello"`, []string{"hELLO"}, true},
		{"StringEqualsIgnoreCase", "aws:Referer", `"Hello"`, []string{"hell"}, false},
		{"StringNotEqualsIgnoreCase", "aws:Referer", `"Hello"`, []string{"HELLO"}, false},
		{"StringNotEqualsIgnoreCase", "aws:Referer", `"Hello"`, []string{"bye"}, true},
		{"StringLike", "aws:Referer", `"https://example.com/*"`, []string{"https://example.com/a/b"}, true},
		{"StringLike", "aws:Referer", `"https://example.com/*"`, []string{"https://example.org/"}, false},
		{"StringLike", "aws:UserAgent", `"curl/?.*"`, []string{"curl/8.1"}, true},
		{"StringLike", "aws:Referer", `"*"`, []string{absent}, false},
		{"StringNotLike", "aws:Referer", `"https://example.com/*"`, []string{"https://evil/"}, true},
		{"StringNotLike", "aws:Referer", `"https://example.com/*"`, []string{"https://example.com/x"}, false},
		{"StringNotLike", "aws:Referer", `"x"`, []string{absent}, true},
		// Numeric operators, with numbers quoted or not.
		{"NumericEquals", "s3:max-keys", `10`, []string{"10"}, true},
		{"NumericEquals", "s3:max-keys", `"10"`, []string{"10.0"}, true},
		{"NumericEquals", "s3:max-keys", `10`, []string{"11"}, false},
		{"NumericEquals", "s3:max-keys", `10`, []string{"ten"}, false},
		{"NumericNotEquals", "s3:max-keys", `10`, []string{"11"}, true},
		{"NumericNotEquals", "s3:max-keys", `10`, []string{"10"}, false},
		{"NumericNotEquals", "s3:max-keys", `10`, []string{absent}, true},
		{"NumericLessThan", "s3:max-keys", `10`, []string{"9"}, true},
		{"NumericLessThan", "s3:max-keys", `10`, []string{"10"}, false},
		{"NumericLessThanEquals", "s3:max-keys", `10`, []string{"10"}, true},
		{"NumericLessThanEquals", "s3:max-keys", `10`, []string{"11"}, false},
		{"NumericGreaterThan", "s3:max-keys", `10`, []string{"11"}, true},
		{"NumericGreaterThan", "s3:max-keys", `10`, []string{"10"}, false},
		{"NumericGreaterThanEquals", "s3:max-keys", `10`, []string{"10"}, true},
		{"NumericGreaterThanEquals", "s3:max-keys", `10`, []string{"9"}, false},
		{"NumericLessThan", "s3:max-keys", `10`, []string{absent}, false},
		// Date operators: ISO 8601 and epoch seconds on either side.
		{"DateEquals", "aws:CurrentTime", `"2026-01-01T00:00:00Z"`, []string{"2026-01-01T00:00:00Z"}, true},
		{"DateEquals", "aws:CurrentTime", `"2026-01-01"`, []string{"2026-01-01T00:00:00Z"}, true},
		{"DateEquals", "aws:EpochTime", `"2026-01-01T00:00:00Z"`, []string{"1767225600"}, true},
		{"DateEquals", "aws:CurrentTime", `1767225600`, []string{"2026-01-01T01:00:00+01:00"}, true},
		{"DateNotEquals", "aws:CurrentTime", `"2026-01-01T00:00:00Z"`, []string{"2026-01-02T00:00:00Z"}, true},
		{"DateNotEquals", "aws:CurrentTime", `"2026-01-01T00:00:00Z"`, []string{absent}, true},
		{"DateLessThan", "aws:CurrentTime", `"2026-01-01T00:00:00Z"`, []string{"2025-12-31T23:59:59Z"}, true},
		{"DateLessThan", "aws:CurrentTime", `"2026-01-01T00:00:00Z"`, []string{"2026-01-01T00:00:00Z"}, false},
		{"DateLessThanEquals", "aws:CurrentTime", `"2026-01-01T00:00:00Z"`, []string{"2026-01-01T00:00:00Z"}, true},
		{"DateGreaterThan", "aws:CurrentTime", `"2026-01-01T00:00:00Z"`, []string{"2026-01-01T00:00:01Z"}, true},
		{"DateGreaterThan", "aws:CurrentTime", `"2026-01-01T00:00:00Z"`, []string{"2025-01-01T00:00:00Z"}, false},
		{"DateGreaterThanEquals", "aws:CurrentTime", `"2026-01-01T00:00:00Z"`, []string{"2026-01-01T00:00:00.000Z"}, true},
		{"DateGreaterThan", "aws:CurrentTime", `"2026-01-01T00:00:00Z"`, []string{"not a date"}, false},
		{"DateLessThan", "aws:CurrentTime", `"2026-01-01T00:00:00Z"`, []string{absent}, false},
		// Bool.
		{"Bool", "aws:SecureTransport", `true`, []string{"true"}, true},
		{"Bool", "aws:SecureTransport", `"true"`, []string{"TRUE"}, true},
		{"Bool", "aws:SecureTransport", `false`, []string{"true"}, false},
		{"Bool", "aws:SecureTransport", `false`, []string{"garbage"}, false},
		{"Bool", "aws:SecureTransport", `false`, []string{absent}, false},
		// IP addresses, v4 and v6, blocks and single addresses.
		{"IpAddress", "aws:SourceIp", `"192.0.2.0/24"`, []string{"192.0.2.77"}, true},
		{"IpAddress", "aws:SourceIp", `"192.0.2.0/24"`, []string{"192.0.3.1"}, false},
		{"IpAddress", "aws:SourceIp", `"192.0.2.7"`, []string{"192.0.2.7"}, true},
		{"IpAddress", "aws:SourceIp", `["10.0.0.0/8","2001:db8::/32"]`, []string{"2001:db8::1"}, true},
		{"IpAddress", "aws:SourceIp", `"2001:db8::/32"`, []string{"2001:db9::1"}, false},
		{"IpAddress", "aws:SourceIp", `"192.0.2.0/24"`, []string{"::ffff:192.0.2.1"}, true},
		{"IpAddress", "aws:SourceIp", `"192.0.2.1/24"`, []string{"192.0.2.200"}, true},
		{"IpAddress", "aws:SourceIp", `"192.0.2.0/24"`, []string{"not an ip"}, false},
		{"IpAddress", "aws:SourceIp", `"192.0.2.0/24"`, []string{absent}, false},
		{"NotIpAddress", "aws:SourceIp", `"192.0.2.0/24"`, []string{"198.51.100.1"}, true},
		{"NotIpAddress", "aws:SourceIp", `"192.0.2.0/24"`, []string{"192.0.2.1"}, false},
		{"NotIpAddress", "aws:SourceIp", `"192.0.2.0/24"`, []string{absent}, true},
		// ARNs: part by part, a wildcard does not cross a colon.
		{"ArnEquals", "aws:SourceArn", `"arn:aws:sns:eu-west-1:123456789012:topic"`, []string{"arn:aws:sns:eu-west-1:123456789012:topic"}, true},
		{"ArnLike", "aws:SourceArn", `"arn:aws:sns:*:123456789012:*"`, []string{"arn:aws:sns:eu-west-1:123456789012:topic"}, true},
		{"ArnLike", "aws:SourceArn", `"arn:aws:sns:*:123456789012:*"`, []string{"arn:aws:sns:eu-west-1:999999999999:topic"}, false},
		{"ArnLike", "aws:SourceArn", `"arn:aws:*:123456789012:*"`, []string{"arn:aws:sns:eu:123456789012:x"}, false},
		{"ArnLike", "aws:SourceArn", `"arn:aws:s3:::bucket/*"`, []string{"arn:aws:s3:::bucket/a:b"}, true},
		{"ArnLike", "aws:SourceArn", `"arn:aws:s3:::bucket/*"`, []string{"arn:aws:s3"}, false},
		{"ArnNotEquals", "aws:SourceArn", `"arn:aws:s3:::a"`, []string{"arn:aws:s3:::b"}, true},
		{"ArnNotLike", "aws:SourceArn", `"arn:aws:s3:::a*"`, []string{"arn:aws:s3:::ab"}, false},
		{"ArnNotLike", "aws:SourceArn", `"arn:aws:s3:::a*"`, []string{absent}, true},
		{"ArnLike", "aws:SourceArn", `"arn:aws:s3:::a*"`, []string{absent}, false},
		// BinaryEquals compares the base64 text.
		{"BinaryEquals", "aws:Referer", `"QmluYXJ5"`, []string{"QmluYXJ5"}, true},
		{"BinaryEquals", "aws:Referer", `"QmluYXJ5"`, []string{"QmluYXJ6"}, false},
		// Null: true asks for the key to be absent.
		{"Null", "s3:x-amz-server-side-encryption", `"true"`, []string{absent}, true},
		{"Null", "s3:x-amz-server-side-encryption", `"true"`, []string{"AES256"}, false},
		{"Null", "s3:x-amz-server-side-encryption", `false`, []string{"AES256"}, true},
		{"Null", "s3:x-amz-server-side-encryption", `false`, []string{absent}, false},
		// IfExists: an absent key passes, a present one is tested.
		{"StringEqualsIfExists", "aws:Referer", `"a"`, []string{absent}, true},
		{"StringEqualsIfExists", "aws:Referer", `"a"`, []string{"b"}, false},
		{"StringEqualsIfExists", "aws:Referer", `"a"`, []string{"a"}, true},
		{"StringNotEqualsIfExists", "aws:Referer", `"a"`, []string{"a"}, false},
		{"NumericLessThanIfExists", "s3:max-keys", `10`, []string{absent}, true},
		{"NumericLessThanIfExists", "s3:max-keys", `10`, []string{"100"}, false},
		{"DateLessThanIfExists", "aws:CurrentTime", `"2026-01-01"`, []string{absent}, true},
		{"BoolIfExists", "aws:SecureTransport", `true`, []string{absent}, true},
		{"BoolIfExists", "aws:SecureTransport", `true`, []string{"false"}, false},
		{"IpAddressIfExists", "aws:SourceIp", `"10.0.0.0/8"`, []string{absent}, true},
		{"IpAddressIfExists", "aws:SourceIp", `"10.0.0.0/8"`, []string{"11.0.0.1"}, false},
		{"ArnLikeIfExists", "aws:SourceArn", `"arn:aws:s3:::a"`, []string{absent}, true},
		{"BinaryEqualsIfExists", "aws:Referer", `"QQ=="`, []string{absent}, true},
		// Keys are case-insensitive.
		{"StringEquals", "AWS:REFERER", `"a"`, []string{"a"}, true},
		// An unknown aws: key is absent, as in AWS.
		{"StringEquals", "aws:NoSuchKey", `"a"`, []string{absent}, false},
		{"StringNotEquals", "aws:NoSuchKey", `"a"`, []string{absent}, true},
		// Multi-valued request keys without a set qualifier: a positive
		// operator wants one match, a negated one no match.
		{"StringEquals", "s3:RequestObjectTagKeys", `"a"`, []string{"b", "a"}, true},
		{"StringNotEquals", "s3:RequestObjectTagKeys", `"a"`, []string{"b", "a"}, false},
		// Set qualifiers.
		{"ForAnyValue:StringEquals", "s3:RequestObjectTagKeys", `["a","b"]`, []string{"x", "b"}, true},
		{"ForAnyValue:StringEquals", "s3:RequestObjectTagKeys", `["a","b"]`, []string{"x", "y"}, false},
		{"ForAnyValue:StringEquals", "s3:RequestObjectTagKeys", `"a"`, []string{absent}, false},
		{"ForAnyValue:StringNotEquals", "s3:RequestObjectTagKeys", `"a"`, []string{"a", "b"}, true},
		{"ForAnyValue:StringNotEquals", "s3:RequestObjectTagKeys", `"a"`, []string{"a"}, false},
		{"ForAllValues:StringEquals", "s3:RequestObjectTagKeys", `["a","b"]`, []string{"a", "b"}, true},
		{"ForAllValues:StringEquals", "s3:RequestObjectTagKeys", `["a","b"]`, []string{"a", "c"}, false},
		{"ForAllValues:StringEquals", "s3:RequestObjectTagKeys", `["a","b"]`, []string{absent}, true},
		{"ForAllValues:StringNotEquals", "s3:RequestObjectTagKeys", `["a"]`, []string{"b", "c"}, true},
		{"ForAllValues:StringNotEquals", "s3:RequestObjectTagKeys", `["a"]`, []string{"b", "a"}, false},
		{"ForAllValues:StringLike", "s3:RequestObjectTagKeys", `"dept-*"`, []string{"dept-a", "dept-b"}, true},
		{"ForAnyValue:StringEqualsIfExists", "s3:RequestObjectTagKeys", `"a"`, []string{absent}, true},
		{"ForAllValues:NumericLessThan", "s3:RequestObjectTagKeys", `5`, []string{"1", "2"}, true},
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s %s %s %q", c.op, c.key, c.value, c.got)
		p := condPolicy(t, `{"`+c.op+`":{"`+c.key+`":`+c.value+`}}`)
		r := req(anon, "s3:GetObject", objARN+"k")
		if c.got[0] != absent {
			r.Conditions = Conditions{}
			r.Conditions.Set(c.key, c.got...)
		}
		want := NoDecision
		if c.want {
			want = Allow
		}
		if got := p.Evaluate(&r); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}

// TestConditionKeys runs each condition key the gateway's callers supply
// through a policy that tests it, so that every key S3 documents parses
// and is looked up under its own name.
func TestConditionKeys(t *testing.T) {
	keys := []struct{ key, op, policyValue, requestValue string }{
		{"aws:SourceIp", "IpAddress", `"203.0.113.0/24"`, "203.0.113.9"},
		{"aws:SecureTransport", "Bool", `true`, "true"},
		{"aws:Referer", "StringLike", `"https://site/*"`, "https://site/page"},
		{"aws:UserAgent", "StringLike", `"aws-cli/*"`, "aws-cli/2.15"},
		{"aws:CurrentTime", "DateGreaterThan", `"2020-01-01T00:00:00Z"`, "2026-12-02T01:00:00Z"},
		{"aws:EpochTime", "NumericGreaterThan", `1577836800`, "1796000000"},
		{"aws:username", "StringEquals", `"alice"`, "alice"},
		{"aws:userid", "StringEquals", `"AIDAALICE"`, "AIDAALICE"},
		{"aws:PrincipalType", "StringEquals", `"User"`, "User"},
		{"s3:prefix", "StringLike", `"home/*"`, "home/a"},
		{"s3:delimiter", "StringEquals", `"/"`, "/"},
		{"s3:max-keys", "NumericLessThanEquals", `100`, "50"},
		{"s3:x-amz-acl", "StringEquals", `"bucket-owner-full-control"`, "bucket-owner-full-control"},
		{"s3:x-amz-grant-read", "StringEquals", `"id=` + aliceID + `"`, "id=" + aliceID},
		{"s3:x-amz-grant-write", "StringEquals", `"id=x"`, "id=x"},
		{"s3:x-amz-grant-read-acp", "StringEquals", `"id=x"`, "id=x"},
		{"s3:x-amz-grant-write-acp", "StringEquals", `"id=x"`, "id=x"},
		{"s3:x-amz-grant-full-control", "StringEquals", `"id=x"`, "id=x"},
		{"s3:x-amz-copy-source", "StringLike", `"site/public/*"`, "site/public/a"},
		{"s3:x-amz-metadata-directive", "StringEquals", `"REPLACE"`, "REPLACE"},
		{"s3:x-amz-server-side-encryption", "StringEquals", `"AES256"`, "AES256"},
		{"s3:x-amz-storage-class", "StringEquals", `"STANDARD"`, "STANDARD"},
		{"s3:ExistingObjectTag/Project", "StringEquals", `"blue"`, "blue"},
		{"s3:RequestObjectTag/Project", "StringEquals", `"blue"`, "blue"},
		{"s3:RequestObjectTagKeys", "ForAllValues:StringEquals", `["Project"]`, "Project"},
		{"s3:object-lock-mode", "StringEquals", `"GOVERNANCE"`, "GOVERNANCE"},
		{"s3:object-lock-retain-until-date", "DateLessThan", `"2030-01-01T00:00:00Z"`, "2027-01-01T00:00:00Z"},
		{"s3:object-lock-remaining-retention-days", "NumericLessThan", `30`, "10"},
		{"s3:object-lock-legal-hold", "StringEquals", `"ON"`, "ON"},
		{"s3:signatureversion", "StringEquals", `"AWS4-HMAC-SHA256"`, "AWS4-HMAC-SHA256"},
		{"s3:authType", "StringEquals", `"REST-HEADER"`, "REST-HEADER"},
		{"s3:x-amz-content-sha256", "StringNotEquals", `"UNSIGNED-PAYLOAD"`, "e3b0c442"},
		{"s3:TlsVersion", "NumericGreaterThanEquals", `1.2`, "1.3"},
	}
	for _, k := range keys {
		p := condPolicy(t, `{"`+k.op+`":{"`+k.key+`":`+k.policyValue+`}}`)
		r := req(anon, "s3:GetObject", objARN+"k", k.key, k.requestValue)
		if got := p.Evaluate(&r); got != Allow {
			t.Errorf("%s %s: %v, want Allow", k.op, k.key, got)
		}
		r.Conditions = nil
		if got := p.Evaluate(&r); got == Allow && k.op != "StringNotEquals" && k.op != "ForAllValues:StringEquals" {
			t.Errorf("%s %s without the key: %v, want NoDecision", k.op, k.key, got)
		}
	}
	// Tag keys keep their case; the key name does not.
	p := condPolicy(t, `{"StringEquals":{"S3:EXISTINGOBJECTTAG/Project":"blue"}}`)
	if got := p.Evaluate(ptr(req(anon, "s3:GetObject", objARN+"k", "s3:ExistingObjectTag/Project", "blue"))); got != Allow {
		t.Errorf("tag key name case: %v", got)
	}
	if got := p.Evaluate(ptr(req(anon, "s3:GetObject", objARN+"k", "s3:ExistingObjectTag/project", "blue"))); got != NoDecision {
		t.Errorf("tag key case must matter: %v", got)
	}
}

func ptr[T any](v T) *T { return &v }

func TestConditionsAllMustHold(t *testing.T) {
	p := condPolicy(t, `{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"},"Bool":{"aws:SecureTransport":"true"},"StringLike":{"aws:Referer":"a*","aws:UserAgent":"b*"}}`)
	all := []string{"aws:SourceIp", "10.1.2.3", "aws:SecureTransport", "true", "aws:Referer", "ax", "aws:UserAgent", "bx"}
	if got := p.Evaluate(ptr(req(anon, "s3:GetObject", objARN+"k", all...))); got != Allow {
		t.Fatalf("all conditions hold: %v", got)
	}
	for i := 0; i < len(all); i += 2 {
		kv := append([]string(nil), all...)
		kv[i+1] = "zzz"
		if got := p.Evaluate(ptr(req(anon, "s3:GetObject", objARN+"k", kv...))); got != NoDecision {
			t.Errorf("%s fails: %v, want NoDecision", all[i], got)
		}
	}
}
