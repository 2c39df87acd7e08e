package policy

import (
	"encoding/base64"
	"encoding/json"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// opKind is a condition operator without its set qualifier, its "Not" and
// its IfExists suffix.
type opKind uint8

const (
	opString opKind = iota + 1
	opStringFold
	opStringLike
	opNumEq
	opNumLt
	opNumLe
	opNumGt
	opNumGe
	opDateEq
	opDateLt
	opDateLe
	opDateGt
	opDateGe
	opBool
	opIP
	opArn
	opBinary
	opNull
)

// setMode is a condition's set qualifier.
type setMode uint8

const (
	single setMode = iota
	forAnyValue
	forAllValues
)

// operators maps IAM's operator names (without qualifier and IfExists) to
// their kind and whether they are the negated form.
func operatorOf(name string) (op opKind, negated bool, ok bool) {
	switch name {
	case "StringEquals":
		return opString, false, true
	case "StringNotEquals":
		return opString, true, true
	case "StringEqualsIgnoreCase":
		return opStringFold, false, true
	case "StringNotEqualsIgnoreCase":
		return opStringFold, true, true
	case "StringLike":
		return opStringLike, false, true
	case "StringNotLike":
		return opStringLike, true, true
	case "NumericEquals":
		return opNumEq, false, true
	case "NumericNotEquals":
		return opNumEq, true, true
	case "NumericLessThan":
		return opNumLt, false, true
	case "NumericLessThanEquals":
		return opNumLe, false, true
	case "NumericGreaterThan":
		return opNumGt, false, true
	case "NumericGreaterThanEquals":
		return opNumGe, false, true
	case "DateEquals":
		return opDateEq, false, true
	case "DateNotEquals":
		return opDateEq, true, true
	case "DateLessThan":
		return opDateLt, false, true
	case "DateLessThanEquals":
		return opDateLe, false, true
	case "DateGreaterThan":
		return opDateGt, false, true
	case "DateGreaterThanEquals":
		return opDateGe, false, true
	case "Bool":
		return opBool, false, true
	case "IpAddress":
		return opIP, false, true
	case "NotIpAddress":
		return opIP, true, true
	case "ArnEquals", "ArnLike":
		// IAM evaluates ArnEquals exactly as ArnLike.
		return opArn, false, true
	case "ArnNotEquals", "ArnNotLike":
		return opArn, true, true
	case "BinaryEquals":
		return opBinary, false, true
	case "Null":
		return opNull, false, true
	}
	return 0, false, false
}

// condition is one compiled (operator, key, values) test.
type condition struct {
	op       opKind
	negated  bool
	set      setMode
	ifExists bool
	key      string // normalised, see normKey
	// The policy's values, in the form op compares: strs for the string
	// operators, arns (split at colons) for Arn*, nums, times (Unix
	// seconds), prefixes, bools (Bool, Null), raw (BinaryEquals).
	strs     [][]seg
	arns     [][][]seg
	nums     []float64
	times    []int64
	prefixes []netip.Prefix
	bools    []bool
	raw      []string
}

// conditions compiles a Condition element.
func (ps *parser) conditions(raw json.RawMessage) ([]condition, error) {
	var ops map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw, &ops); err != nil {
		return nil, malformed("Invalid Condition: a Condition must map operators to objects of keys and values")
	}
	var out []condition
	for _, name := range sortedKeys(ops) {
		keys := ops[name]
		c := condition{}
		base := name
		switch {
		case strings.HasPrefix(base, "ForAnyValue:"):
			c.set, base = forAnyValue, base[len("ForAnyValue:"):]
		case strings.HasPrefix(base, "ForAllValues:"):
			c.set, base = forAllValues, base[len("ForAllValues:"):]
		}
		if b, ok := strings.CutSuffix(base, "IfExists"); ok && b != "Null" {
			c.ifExists, base = true, b
		}
		var ok bool
		c.op, c.negated, ok = operatorOf(base)
		if !ok {
			return nil, malformed("Invalid Condition type : %s", name)
		}
		for _, key := range sortedKeys(keys) {
			v := keys[key]
			cc := c
			if err := ps.conditionKey(key); err != nil {
				return nil, err
			}
			cc.key = normKey(key)
			vals, err := conditionValues(v)
			if err != nil {
				return nil, malformed("Invalid Condition value for %s %s: %s", name, key, err.Error())
			}
			if err := cc.compileValues(vals, ps.mode); err != nil {
				if err == errIP {
					return nil, malformed("Invalid IP address in Conditions: %s %s", name, key)
				}
				return nil, malformed("Invalid Condition value for %s %s: %s", name, key, err.Error())
			}
			out = append(out, cc)
		}
	}
	return out, nil
}

// conditionKey checks a condition key's name: an S3 key must be one S3
// defines; a global aws: key may be any (one the caller does not supply is
// absent at evaluation, as in AWS). A bucket policy may use no other
// service's keys.
func (ps *parser) conditionKey(key string) error {
	service, name, ok := strings.Cut(strings.ToLower(key), ":")
	if !ok || service == "" || name == "" {
		return malformed("Policy has an invalid condition key: %s", key)
	}
	switch service {
	case "aws":
		return nil
	case "s3":
		if isS3ConditionKey(name) {
			return nil
		}
	default:
		if ps.kind == Identity {
			return nil
		}
	}
	return malformed("Policy has an invalid condition key: %s", key)
}

// keyActions returns the actions S3 allows a condition key with, for the
// keys that S3 restricts; ok is false for a key any action may use.
func keyActions(key string) (actions []string, ok bool) {
	switch {
	case key == "s3:prefix", key == "s3:delimiter", key == "s3:max-keys":
		return []string{"s3:listbucket", "s3:listbucketversions"}, true
	case key == "s3:x-amz-acl", strings.HasPrefix(key, "s3:x-amz-grant-"):
		return []string{"s3:putobject", "s3:putobjectacl", "s3:putobjectversionacl", "s3:putbucketacl", "s3:createbucket"}, true
	case key == "s3:x-amz-copy-source", key == "s3:x-amz-metadata-directive":
		return []string{"s3:putobject"}, true
	}
	return nil, false
}

// conditionsApply refuses, as S3 does, a Condition on a key that one of
// the statement's actions cannot carry, such as s3:prefix on
// s3:GetObject. Wildcard actions are not checked: "s3:*" includes actions
// that can.
func conditionsApply(conds []condition, actions []string) error {
	for i := range conds {
		allowed, ok := keyActions(conds[i].key)
		if !ok {
			continue
		}
		for _, a := range actions {
			a = strings.ToLower(a)
			if strings.ContainsAny(a, "*?") {
				continue
			}
			found := false
			for _, b := range allowed {
				found = found || a == b
			}
			if !found {
				return malformed("Conditions do not apply to combination of actions and resources in statement")
			}
		}
	}
	return nil
}

// isS3ConditionKey reports whether name (lower case, without "s3:") is a
// condition key S3 defines.
func isS3ConditionKey(name string) bool {
	for _, p := range []string{"existingobjecttag/", "requestobjecttag/", "x-amz-grant-", "object-lock-", "resourcetag/", "requesttag/"} {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			return true
		}
	}
	switch name {
	case "prefix", "delimiter", "max-keys", "x-amz-acl", "x-amz-copy-source",
		"x-amz-metadata-directive", "x-amz-server-side-encryption",
		"x-amz-server-side-encryption-aws-kms-key-id", "x-amz-server-side-encryption-customer-algorithm",
		"x-amz-storage-class", "x-amz-website-redirect-location", "x-amz-content-sha256",
		"x-amz-object-ownership", "requestobjecttagkeys", "signatureversion", "authtype",
		"tlsversion", "versionid", "locationconstraint", "resourceaccount",
		"dataaccesspointarn", "dataaccesspointaccount", "accesspointnetworkorigin",
		"if-none-match", "if-match", "objectcreationoperation",
		"x-amz-checksum-algorithm", "x-amz-write-offset-bytes":
		return true
	}
	return false
}

// conditionValues decodes a condition's value: a string, number or
// boolean, or a list of them (IAM accepts numbers and booleans unquoted).
func conditionValues(raw json.RawMessage) ([]string, error) {
	var list []json.RawMessage
	if t := strings.TrimLeft(string(raw), " \t\r\n"); strings.HasPrefix(t, "[") {
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, err
		}
	} else {
		list = []json.RawMessage{raw}
	}
	out := make([]string, 0, len(list))
	for _, v := range list {
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return nil, err
		}
		switch x := x.(type) {
		case string:
			out = append(out, x)
		case bool:
			out = append(out, strconv.FormatBool(x))
		case float64:
			out = append(out, strings.TrimSpace(string(v)))
		default:
			return nil, errValueType
		}
	}
	return out, nil
}

type valueError string

func (e valueError) Error() string { return string(e) }

const (
	errValueType = valueError("values must be strings, numbers or booleans")
	errNumber    = valueError("not a number")
	errDate      = valueError("not a date")
	errBool      = valueError("not true or false")
	errIP        = valueError("not an IP address or CIDR block")
	errBinary    = valueError("not base64")
)

// compileValues parses the policy's values into the form c.op compares.
func (c *condition) compileValues(vals []string, mode compileMode) error {
	for _, v := range vals {
		switch c.op {
		case opString, opStringFold:
			c.strs = append(c.strs, compile(v, compileMode{variables: mode.variables}))
		case opStringLike:
			c.strs = append(c.strs, compile(v, mode))
		case opArn:
			parts := strings.SplitN(v, ":", 6)
			a := make([][]seg, len(parts))
			for i, p := range parts {
				a[i] = compile(p, mode)
			}
			c.arns = append(c.arns, a)
		case opNumEq, opNumLt, opNumLe, opNumGt, opNumGe:
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return errNumber
			}
			c.nums = append(c.nums, f)
		case opDateEq, opDateLt, opDateLe, opDateGt, opDateGe:
			t, ok := parseDate(v)
			if !ok {
				return errDate
			}
			c.times = append(c.times, t)
		case opBool, opNull:
			b, ok := parseBool(v)
			if !ok {
				return errBool
			}
			c.bools = append(c.bools, b)
		case opIP:
			pfx, ok := parsePrefix(v)
			if !ok {
				return errIP
			}
			c.prefixes = append(c.prefixes, pfx)
		case opBinary:
			if _, err := base64.StdEncoding.DecodeString(v); err != nil {
				return errBinary
			}
			c.raw = append(c.raw, v)
		}
	}
	return nil
}

// eval reports whether the condition holds for r.
func (c *condition) eval(r *Request) bool {
	vals, present := r.Conditions[c.key]
	if c.op == opNull {
		// Null's value true asks for the key to be absent.
		for _, want := range c.bools {
			if want != present {
				return true
			}
		}
		return false
	}
	if !present {
		switch {
		case c.ifExists:
			return true
		case c.set == forAllValues:
			return true
		case c.set == forAnyValue:
			return false
		}
		// Without the key, a positive operator fails and a negated one
		// holds, as in IAM.
		return c.negated
	}
	switch c.set {
	case forAnyValue:
		for _, v := range vals {
			if c.matchValue(v, r) != c.negated {
				return true
			}
		}
		return false
	case forAllValues:
		for _, v := range vals {
			if c.matchValue(v, r) == c.negated {
				return false
			}
		}
		return true
	}
	any := false
	for _, v := range vals {
		if c.matchValue(v, r) {
			any = true
			break
		}
	}
	return any != c.negated
}

// matchValue reports whether one request value matches any of the
// policy's values under the positive form of the operator.
func (c *condition) matchValue(v string, r *Request) bool {
	switch c.op {
	case opString:
		return anyMatch(c.strs, v, r, exactCase)
	case opStringFold:
		return anyMatch(c.strs, v, r, ignoreCase)
	case opStringLike:
		return anyMatch(c.strs, v, r, exactCase)
	case opArn:
		return c.matchArn(v, r)
	case opNumEq, opNumLt, opNumLe, opNumGt, opNumGe:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return false
		}
		for _, n := range c.nums {
			if compare(c.op-opNumEq, cmp3(f, n)) {
				return true
			}
		}
	case opDateEq, opDateLt, opDateLe, opDateGt, opDateGe:
		t, ok := parseDate(v)
		if !ok {
			return false
		}
		for _, n := range c.times {
			if compare(c.op-opDateEq, cmp3(t, n)) {
				return true
			}
		}
	case opBool:
		b, ok := parseBool(v)
		if !ok {
			return false
		}
		for _, want := range c.bools {
			if b == want {
				return true
			}
		}
	case opIP:
		a, err := netip.ParseAddr(v)
		if err != nil {
			return false
		}
		a = a.Unmap()
		for _, p := range c.prefixes {
			if p.Contains(a) {
				return true
			}
		}
	case opBinary:
		for _, want := range c.raw {
			if v == want {
				return true
			}
		}
	}
	return false
}

func anyMatch(pats [][]seg, v string, r *Request, cm caseMode) bool {
	for _, p := range pats {
		if matchSegs(p, v, r, cm) {
			return true
		}
	}
	return false
}

// matchArn compares ARNs as IAM does: each of the six colon-separated
// parts separately, so that a wildcard does not cross a colon. A policy
// value of fewer parts is compared with as many parts of the request's
// value, the last taking the rest.
func (c *condition) matchArn(v string, r *Request) bool {
next:
	for _, parts := range c.arns {
		rest := v
		for j, p := range parts {
			part := rest
			if j < len(parts)-1 {
				var ok bool
				part, rest, ok = strings.Cut(rest, ":")
				if !ok {
					continue next
				}
			}
			if !matchSegs(p, part, r, exactCase) {
				continue next
			}
		}
		return true
	}
	return false
}

// compare applies the relation rel (0 =, 1 <, 2 <=, 3 >, 4 >=, the order
// of the Numeric and Date operators) to the result of cmp3.
func compare(rel opKind, c int) bool {
	switch rel {
	case 0:
		return c == 0
	case 1:
		return c < 0
	case 2:
		return c <= 0
	case 3:
		return c > 0
	case 4:
		return c >= 0
	}
	return false
}

func cmp3[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// parseDate reads the date forms IAM accepts: ISO 8601 (RFC 3339, with or
// without fractional seconds, or a bare date) and epoch seconds. It
// returns Unix seconds; fractions of a second are dropped.
func parseDate(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	if s[0] >= '0' && s[0] <= '9' && !strings.ContainsAny(s, "-:T") {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, false
		}
		return n, true
	}
	for _, layout := range [...]string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Unix(), true
		}
	}
	return 0, false
}

func parseBool(s string) (bool, bool) {
	switch {
	case strings.EqualFold(s, "true"):
		return true, true
	case strings.EqualFold(s, "false"):
		return false, true
	}
	return false, false
}

// parsePrefix reads a CIDR block, or a bare address as the block of that
// one address.
func parsePrefix(s string) (netip.Prefix, bool) {
	if p, err := netip.ParsePrefix(s); err == nil {
		p = p.Masked()
		if p.Addr().Is4In6() {
			return netip.Prefix{}, false
		}
		return p, true
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Prefix{}, false
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), true
}
