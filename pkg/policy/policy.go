package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// The actions the anonymous-read evaluator Allows is asked about, as IAM
// spells them.
const (
	GetObject  = "s3:GetObject"
	ListBucket = "s3:ListBucket"
)

// MaxSize is S3's limit on the size of a bucket policy document, in bytes.
const MaxSize = 20 << 10

// MaxIdentitySize is the limit on an identity policy, the policy attached
// to a user: IAM's quota for the inline policies of a user, "User policy
// size cannot exceed 2,048 characters", white space not counted ("IAM and
// AWS STS quotas", IAM User Guide,
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html).
// Documents of more than MaxSize bytes are refused before they are
// counted.
const MaxIdentitySize = 2048

const arnPrefix = "arn:aws:s3:::"

// Kind says what a policy document is attached to, which decides its
// grammar: a bucket policy names a Principal and only its own bucket, an
// identity policy names no Principal and applies to the user it is
// attached to.
type Kind uint8

const (
	// Bucket is a bucket policy (PutBucketPolicy).
	Bucket Kind = iota + 1
	// Identity is a policy attached to a user.
	Identity
)

// Policy is a parsed, compiled policy. It is immutable and safe for
// concurrent use.
type Policy struct {
	kind Kind
	// bucketARN is "arn:aws:s3:::bucket" for a bucket policy: the only
	// resources its statements can match. It is empty for identity
	// policies and for PublicRead.
	bucketARN string
	stmts     []statement
}

// Kind reports what the policy is attached to.
func (p *Policy) Kind() Kind { return p.kind }

// statement is one compiled statement.
type statement struct {
	deny bool
	// principal is nil in identity policies, which apply to their user.
	principal    *principalSet
	notPrincipal bool
	actions      [][]seg
	notAction    bool
	resources    [][]seg
	notResource  bool
	conditions   []condition
}

func malformed(format string, args ...any) error {
	return s3err.Newf(s3err.MalformedPolicy, format, args...)
}

// Parse validates a bucket policy document for bucket and returns its
// evaluator. Every error is an *s3err.Error with code MalformedPolicy and,
// where S3 has one, S3's message.
func Parse(doc []byte, bucket string) (*Policy, error) {
	return parse(doc, Bucket, bucket)
}

// ParseIdentity validates an identity policy, one attached to a user, and
// returns its evaluator. Errors are as Parse's.
func ParseIdentity(doc []byte) (*Policy, error) {
	return parse(doc, Identity, "")
}

// ParseStored is Parse of a bucket policy read back from the catalogue,
// validated when it was stored, perhaps by a version of the gateway that
// accepted more: a statement that allows with NotPrincipal, refused by
// Parse since, is read as granting nothing, so that the policy's other
// statements, its Denies above all, still apply.
func ParseStored(doc []byte, bucket string) (*Policy, error) {
	return parseDoc(doc, Bucket, bucket, true)
}

// Unreadable is what stands for a stored bucket policy of bucket that
// ParseStored cannot read (written by a later version of the gateway, or
// damaged): it denies every action on the bucket and its objects to every
// principal. Reading such a policy as no policy would drop its Denies and
// leave the bucket to its ACLs; this way it fails closed, and the bucket's
// owner can still read, replace or delete the policy (pkg/access exempts
// the policy operations for the owner, and root, from every Deny).
func Unreadable(bucket string) *Policy {
	arn := "arn:aws:s3:::" + bucket
	doc, _ := json.Marshal(map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{
		"Effect": "Deny", "Principal": "*", "Action": "s3:*", "Resource": []string{arn, arn + "/*"}}}})
	p, err := parse(doc, Bucket, bucket)
	if err != nil {
		// A bucket name the gateway accepted always makes a valid ARN.
		panic("policy: the deny-all policy of bucket " + bucket + ": " + err.Error())
	}
	return p
}

func parse(doc []byte, kind Kind, bucket string) (*Policy, error) {
	return parseDoc(doc, kind, bucket, false)
}

func parseDoc(doc []byte, kind Kind, bucket string, stored bool) (*Policy, error) {
	if len(doc) > MaxSize {
		return nil, malformed("Policies must be less than %d bytes; this one is %d bytes.", MaxSize, len(doc))
	}
	if kind == Identity {
		if n := countNonSpace(doc); n > MaxIdentitySize {
			return nil, malformed("Maximum policy size of %d bytes exceeded for user: this one has %d characters, white space not counted.", MaxIdentitySize, n)
		}
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
	// A document without a Version is read as 2008-10-17, which has no
	// policy variables: "${aws:username}" is then literal text, as in IAM.
	version := "2008-10-17"
	if v, ok := top["Version"]; ok {
		if json.Unmarshal(v, &version) != nil || (version != "2012-10-17" && version != "2008-10-17") {
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
	ps := &parser{
		kind:    kind,
		bucket:  bucket,
		stored:  stored,
		mode:    compileMode{wildcards: true, variables: version == "2012-10-17"},
		actions: s3Actions(),
	}
	p := &Policy{kind: kind, stmts: make([]statement, 0, len(stmts))}
	if kind == Bucket {
		p.bucketARN = arnPrefix + bucket
	}
	sids := make(map[string]bool, len(stmts))
	for i, raw := range stmts {
		st, sid, err := ps.statement(raw)
		if err != nil {
			return nil, s3err.Newf(s3err.MalformedPolicy, "Statement %d: %s", i+1, s3err.As(err).Text())
		}
		if sid != "" {
			if sids[sid] {
				return nil, malformed("Statement IDs (SID) in a single policy must be unique: %s", sid)
			}
			sids[sid] = true
		}
		p.stmts = append(p.stmts, st)
	}
	return p, nil
}

// parser holds what every statement of one document is parsed against.
type parser struct {
	kind   Kind
	bucket string
	// stored: the document is read back from the catalogue (ParseStored).
	stored  bool
	mode    compileMode
	actions map[string]resType
}

// isStatementField reports whether k is an element of a statement.
func isStatementField(k string) bool {
	switch k {
	case "Sid", "Effect", "Principal", "NotPrincipal", "Action", "NotAction", "Resource", "NotResource", "Condition":
		return true
	}
	return false
}

// statement compiles one statement and returns its Sid.
func (ps *parser) statement(raw json.RawMessage) (statement, string, error) {
	var st statement
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return st, "", malformed("a statement must be a JSON object")
	}
	for _, k := range sortedKeys(m) {
		if !isStatementField(k) {
			return st, "", malformed("Unknown field %s", k)
		}
	}
	var sid string
	if v, ok := m["Sid"]; ok {
		if json.Unmarshal(v, &sid) != nil {
			return st, "", malformed("Sid must be a string")
		}
	}
	var effect string
	if json.Unmarshal(m["Effect"], &effect) != nil || effect == "" {
		return st, "", malformed("Missing required field Effect")
	}
	switch effect {
	case "Allow":
	case "Deny":
		st.deny = true
	default:
		return st, "", malformed("Invalid effect: %s", effect)
	}
	if err := ps.principal(&st, m); err != nil {
		return st, "", err
	}
	actions, err := either(m, "Action", "NotAction", &st.notAction)
	if err != nil {
		return st, "", err
	}
	resources, err := either(m, "Resource", "NotResource", &st.notResource)
	if err != nil {
		return st, "", err
	}
	var have resType
	for _, r := range resources {
		segs, t, err := ps.resource(r)
		if err != nil {
			return st, "", err
		}
		have |= t
		st.resources = append(st.resources, segs)
	}
	for _, a := range actions {
		segs, t, err := ps.action(a)
		if err != nil {
			return st, "", err
		}
		if !st.notAction && !st.notResource && t&have == 0 {
			return st, "", malformed("Action does not apply to any resource(s) in statement: %s", a)
		}
		st.actions = append(st.actions, segs)
	}
	if v, ok := m["Condition"]; ok {
		st.conditions, err = ps.conditions(v)
		if err != nil {
			return st, "", err
		}
		if !st.notAction {
			if err := conditionsApply(st.conditions, actions); err != nil {
				return st, "", err
			}
		}
	}
	return st, sid, nil
}

// either decodes the one of name and notName that m has; not reports
// which.
func either(m map[string]json.RawMessage, name, notName string, not *bool) ([]string, error) {
	v, has := m[name]
	nv, hasNot := m[notName]
	switch {
	case has && hasNot:
		return nil, malformed("A statement cannot have both %s and %s", name, notName)
	case hasNot:
		*not = true
		return stringOrList(nv, notName)
	case has:
		return stringOrList(v, name)
	}
	return nil, malformed("Missing required field %s", name)
}

// action compiles an action pattern and returns the resource types of the
// S3 actions it names.
func (ps *parser) action(a string) ([]seg, resType, error) {
	low := strings.ToLower(a)
	segs := compile(low, compileMode{wildcards: true})
	if low == "*" {
		return segs, resBucket | resObject | resAccount, nil
	}
	service, _, ok := strings.Cut(low, ":")
	if !ok || service == "" {
		return nil, 0, malformed("Policy has invalid action: %s", a)
	}
	if service != "s3" {
		// An identity policy may name other services' actions, which no
		// request to the gateway performs; a bucket policy may not.
		if ps.kind == Identity && !strings.ContainsAny(service, "*?") {
			return segs, resBucket | resObject | resAccount, nil
		}
		return nil, 0, malformed("Policy has invalid action: %s", a)
	}
	t := actionTypes(ps.actions, segs)
	if t == 0 {
		return nil, 0, malformed("Policy has invalid action: %s", a)
	}
	return segs, t, nil
}

// resource compiles a resource pattern and returns the resource types it
// can match. A bucket policy's resources must name its own bucket.
func (ps *parser) resource(r string) ([]seg, resType, error) {
	if r == "*" {
		return compile(r, ps.mode), resBucket | resObject | resAccount, nil
	}
	rest, ok := strings.CutPrefix(r, arnPrefix)
	if !ok && ps.kind == Identity && strings.HasPrefix(r, "arn:") && strings.Count(r, ":") >= 5 {
		// Another service's resource, for the other services' actions
		// an identity policy may name; no request to the gateway is on
		// it.
		return compile(r, ps.mode), resBucket | resObject | resAccount, nil
	}
	if !ok || rest == "" {
		return nil, 0, malformed("Policy has invalid resource: %s", r)
	}
	b, _, isObject := strings.Cut(rest, "/")
	if ps.kind == Bucket {
		bp := compile(b, ps.mode)
		if !hasVars(bp) && !matchSegs(bp, ps.bucket, nil, exactCase) {
			return nil, 0, malformed("Policy has invalid resource: %s", r)
		}
	}
	segs := compile(r, ps.mode)
	var t resType
	switch {
	case isObject:
		t = resObject
	case strings.ContainsAny(b, "*"):
		// "arn:aws:s3:::site*" matches the bucket and its objects.
		t = resBucket | resObject
	default:
		t = resBucket
	}
	return segs, t, nil
}

// stringOrList decodes a policy element that is a string or a non-empty
// list of strings.
func stringOrList(raw json.RawMessage, name string) ([]string, error) {
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

// sortedKeys returns m's keys in order, so that the first error reported
// for a document is always the same one.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// countNonSpace counts the characters of doc that are not white space, the
// measure IAM's size limit uses.
func countNonSpace(doc []byte) int {
	n := 0
	for _, r := range string(doc) {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}
