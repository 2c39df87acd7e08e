package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// The actions a policy may grant, as IAM spells them.
const (
	GetObject  = "s3:GetObject"
	ListBucket = "s3:ListBucket"
)

// MaxSize is S3's limit on the size of a bucket policy document.
const MaxSize = 20 << 10

const arnPrefix = "arn:aws:s3:::"

// Policy is a parsed bucket policy: what anonymous requests may do.
type Policy struct {
	// objects are the key patterns s3:GetObject is granted on.
	objects []string
	// list is set when s3:ListBucket is granted.
	list bool
}

// PublicRead is the grant of the canned ACL public-read: every object may
// be read and the bucket listed.
func PublicRead() *Policy { return &Policy{objects: []string{"*"}, list: true} }

// Allows reports whether an anonymous request may perform action; key is
// the object key for GetObject and is ignored for ListBucket. A nil
// Policy allows nothing.
func (p *Policy) Allows(action, key string) bool {
	if p == nil {
		return false
	}
	switch action {
	case GetObject:
		for _, pat := range p.objects {
			if match(pat, key) {
				return true
			}
		}
	case ListBucket:
		return p.list
	}
	return false
}

// IsPublic reports whether the policy grants anything to everyone. Every
// policy Parse accepts does.
func (p *Policy) IsPublic() bool { return p != nil && (p.list || len(p.objects) > 0) }

func malformed(format string, args ...any) error {
	return s3err.Newf(s3err.MalformedPolicy, format, args...)
}

// unsupported names the policy elements the gateway does not enforce.
var unsupported = map[string]string{
	"Condition":    "Condition elements are not supported by this gateway",
	"NotPrincipal": "NotPrincipal elements are not supported by this gateway",
	"NotAction":    "NotAction elements are not supported by this gateway",
	"NotResource":  "NotResource elements are not supported by this gateway",
}

// Parse validates a bucket policy document for bucket and returns its
// evaluator. Every error is an *s3err.Error with code MalformedPolicy.
func Parse(doc []byte, bucket string) (*Policy, error) {
	if len(doc) > MaxSize {
		return nil, malformed("Policies must be less than %d bytes; this one is %d bytes.", MaxSize, len(doc))
	}
	trimmed := bytes.TrimLeft(doc, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, malformed("Policies must be valid JSON and the first byte must be '{'")
	}
	var top map[string]json.RawMessage
	if err := decodeStrict(doc, &top); err != nil {
		return nil, malformed("This policy contains invalid Json")
	}
	for k := range top {
		switch k {
		case "Version", "Id", "Statement":
		default:
			return nil, malformed("Unknown field %s", k)
		}
	}
	if v, ok := top["Version"]; ok {
		var s string
		if json.Unmarshal(v, &s) != nil || (s != "2012-10-17" && s != "2008-10-17") {
			return nil, malformed("The policy must contain a valid version string")
		}
	}
	if v, ok := top["Id"]; ok {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return nil, malformed("Id must be a string")
		}
	}
	raw, ok := top["Statement"]
	if !ok {
		return nil, malformed("Missing required field Statement")
	}
	var stmts []json.RawMessage
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(raw, &stmts); err != nil {
			return nil, malformed("Statement must be an object or a list of objects")
		}
	} else {
		stmts = []json.RawMessage{raw}
	}
	if len(stmts) == 0 {
		return nil, malformed("Could not parse the policy: Statement is empty!")
	}
	p := &Policy{}
	for i, raw := range stmts {
		if err := p.statement(raw, bucket); err != nil {
			return nil, s3err.Newf(s3err.MalformedPolicy, "Statement %d: %s", i+1, s3err.As(err).Text())
		}
	}
	sort.Strings(p.objects)
	p.objects = compact(p.objects)
	return p, nil
}

// statement adds the grants of one statement to p.
func (p *Policy) statement(raw json.RawMessage, bucket string) error {
	var st map[string]json.RawMessage
	if err := json.Unmarshal(raw, &st); err != nil || st == nil {
		return malformed("a statement must be a JSON object")
	}
	names := make([]string, 0, len(st))
	for k := range st {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		switch k {
		case "Sid", "Effect", "Principal", "Action", "Resource":
		default:
			if msg, ok := unsupported[k]; ok {
				return malformed("%s", msg)
			}
			return malformed("Unknown field %s", k)
		}
	}
	if v, ok := st["Sid"]; ok {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return malformed("Sid must be a string")
		}
	}
	var effect string
	if json.Unmarshal(st["Effect"], &effect) != nil || effect == "" {
		return malformed("Missing required field Effect")
	}
	switch effect {
	case "Allow":
	case "Deny":
		return malformed("Deny statements are not supported by this gateway")
	default:
		return malformed("Invalid effect: %s", effect)
	}
	if err := checkPrincipal(st["Principal"]); err != nil {
		return err
	}
	actions, err := stringOrList(st["Action"], "Action")
	if err != nil {
		return err
	}
	resources, err := stringOrList(st["Resource"], "Resource")
	if err != nil {
		return err
	}
	var objects []string
	bucketRes := false
	for _, r := range resources {
		rest, ok := strings.CutPrefix(r, arnPrefix)
		if !ok {
			return malformed("Policy has invalid resource: %s", r)
		}
		if strings.Contains(rest, "${") {
			return malformed("Policy variables are not supported by this gateway: %s", r)
		}
		b, pattern, isObject := strings.Cut(rest, "/")
		if b != bucket {
			return malformed("Policy has invalid resource: %s", r)
		}
		if isObject {
			objects = append(objects, pattern)
		} else {
			bucketRes = true
		}
	}
	for _, a := range actions {
		switch {
		case strings.EqualFold(a, GetObject):
			if len(objects) == 0 {
				return malformed("Action does not apply to any resource(s) in statement: %s", a)
			}
			p.objects = append(p.objects, objects...)
		case strings.EqualFold(a, ListBucket):
			if !bucketRes {
				return malformed("Action does not apply to any resource(s) in statement: %s", a)
			}
			p.list = true
		default:
			return malformed("Action %s is not supported by this gateway; only %s and %s can be granted", a, GetObject, ListBucket)
		}
	}
	return nil
}

// checkPrincipal accepts the anonymous principal in its three spellings.
func checkPrincipal(raw json.RawMessage) error {
	if raw == nil {
		return malformed("Missing required field Principal")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s != "*" {
			return malformed("Invalid principal in policy: %q", s)
		}
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return malformed("Invalid principal in policy")
	}
	for k, v := range m {
		if k != "AWS" {
			return malformed("Principal %s is not supported by this gateway; only \"*\" is", k)
		}
		ids, err := stringOrList(v, "Principal AWS")
		if err != nil {
			return err
		}
		for _, id := range ids {
			if id != "*" {
				return malformed("Principal %q is not supported by this gateway; only the anonymous principal \"*\" is", id)
			}
		}
	}
	if len(m) == 0 {
		return malformed("Invalid principal in policy")
	}
	return nil
}

// stringOrList decodes a policy element that is a string or a non-empty
// list of strings.
func stringOrList(raw json.RawMessage, name string) ([]string, error) {
	if raw == nil {
		return nil, malformed("Missing required field %s", name)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}, nil
	}
	var l []string
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, malformed("%s must be a string or a list of strings", name)
	}
	if len(l) == 0 {
		return nil, malformed("%s must not be empty", name)
	}
	return l, nil
}

// decodeStrict decodes exactly one JSON value from doc.
func decodeStrict(doc []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("trailing data after the policy")
	}
	return nil
}

func compact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// match reports whether key matches an IAM resource pattern: '*' matches
// any run of characters (including '/'), '?' any single character (a UTF-8
// sequence, or one byte that is not valid UTF-8), everything else itself.
// It runs in O(len(pattern)·len(key)) at worst, with no recursion.
func match(pattern, key string) bool {
	p, k := 0, 0
	star, mark := -1, 0
	for k < len(key) {
		switch {
		case p < len(pattern) && pattern[p] == '?':
			_, n := utf8.DecodeRuneInString(key[k:])
			p++
			k += n
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, k
			p++
		case p < len(pattern) && pattern[p] == key[k]:
			p++
			k++
		case star >= 0:
			// Let the star absorb one more character, never half of one.
			_, n := utf8.DecodeRuneInString(key[mark:])
			mark += n
			p, k = star+1, mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
