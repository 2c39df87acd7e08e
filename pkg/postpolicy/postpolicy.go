package postpolicy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// Policy is a parsed POST policy.
type Policy struct {
	// Expiration is when the policy stops being valid.
	Expiration time.Time
	conditions []condition
	rangeSet   bool
	min, max   int64
}

type op uint8

const (
	opEq op = iota
	opStartsWith
)

type condition struct {
	op    op
	field string // lower case, without '$'
	value string
	text  string // the condition as written, for error messages
}

func invalidDoc(format string, args ...any) error {
	return s3err.Newf(s3err.InvalidPolicyDocument, "Invalid Policy: "+format, args...)
}

func denied(format string, args ...any) error {
	return s3err.Newf(s3err.AccessDenied, "Invalid according to Policy: "+format, args...)
}

// Parse parses a decoded (not base64) policy document. Its two keys,
// "expiration" and "conditions", are matched exactly, as S3 matches them:
// encoding/json would also take "EXPIRATION" or "Conditions" for them.
func Parse(doc []byte) (*Policy, error) {
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(doc))
	if err := dec.Decode(&top); err != nil || top == nil {
		return nil, invalidDoc("Invalid JSON.")
	}
	if dec.More() {
		return nil, invalidDoc("Invalid JSON.")
	}
	var raw struct {
		Expiration *string
		Conditions *[]json.RawMessage
	}
	for k, v := range top {
		var err error
		switch k {
		case "expiration":
			err = json.Unmarshal(v, &raw.Expiration)
		case "conditions":
			err = json.Unmarshal(v, &raw.Conditions)
		default:
			err = fmt.Errorf("unknown key %q", k)
		}
		if err != nil {
			return nil, invalidDoc("Invalid JSON.")
		}
	}
	if raw.Expiration == nil {
		return nil, invalidDoc("Policy missing expiration.")
	}
	exp, err := parseTime(*raw.Expiration)
	if err != nil {
		return nil, invalidDoc("Invalid 'expiration' value: '%s'", *raw.Expiration)
	}
	if raw.Conditions == nil {
		return nil, invalidDoc("Policy missing conditions.")
	}
	p := &Policy{Expiration: exp}
	for _, c := range *raw.Conditions {
		if err := p.add(c); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// parseTime accepts the ISO 8601 forms clients send: with or without
// fractional seconds, in UTC.
func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02T15:04:05.000Z", "2006-01-02T15:04:05Z", time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad time %q", s)
}

func (p *Policy) add(raw json.RawMessage) error {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 {
		return invalidDoc("Invalid JSON.")
	}
	if t[0] == '{' {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return invalidDoc("Invalid Simple-Condition: %s", compactJSON(raw))
		}
		if len(m) != 1 {
			return invalidDoc("Invalid Simple-Condition: Simple-Conditions must have exactly one property specified.")
		}
		for k, v := range m {
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return invalidDoc("Invalid Simple-Condition: value must be a string.")
			}
			p.conditions = append(p.conditions, condition{op: opEq, field: strings.ToLower(k), value: s, text: conditionText("eq", "$"+k, s)})
		}
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return invalidDoc("Invalid condition: %s", compactJSON(raw))
	}
	text := compactJSON(raw)
	if len(list) != 3 {
		return invalidDoc("wrong number of arguments: %s", text)
	}
	var name string
	if err := json.Unmarshal(list[0], &name); err != nil {
		return invalidDoc("Invalid condition: %s", text)
	}
	switch strings.ToLower(name) {
	case "content-length-range":
		lo, err1 := number(list[1])
		hi, err2 := number(list[2])
		if err1 != nil || err2 != nil || lo < 0 || hi < lo {
			return invalidDoc("Invalid content-length-range: %s", text)
		}
		p.rangeSet, p.min, p.max = true, lo, hi
		return nil
	case "eq", "starts-with":
		var field, value string
		if json.Unmarshal(list[1], &field) != nil || json.Unmarshal(list[2], &value) != nil {
			return invalidDoc("Invalid condition: %s", text)
		}
		if !strings.HasPrefix(field, "$") || len(field) < 2 {
			return invalidDoc("Condition field must start with '$': %s", text)
		}
		c := condition{op: opEq, field: strings.ToLower(field[1:]), value: value, text: conditionText("eq", field, value)}
		if strings.EqualFold(name, "starts-with") {
			c.op, c.text = opStartsWith, conditionText("starts-with", field, value)
		}
		p.conditions = append(p.conditions, c)
		return nil
	}
	return invalidDoc("Invalid condition type: %s", text)
}

// number reads a JSON number or a string holding a decimal integer.
func number(raw json.RawMessage) (int64, error) {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return strconv.ParseInt(n.String(), 10, 64)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, err
	}
	return strconv.ParseInt(s, 10, 64)
}

// conditionText is a condition as S3 names it in "Policy Condition
// failed": a JSON array of its operator, field and value, the elements
// separated by ", " (["eq", "$key", "uploads/a.png"]), whichever form the
// policy wrote it in.
func conditionText(op, field, value string) string {
	q := func(s string) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		return strings.TrimSuffix(b.String(), "\n")
	}
	return "[" + q(op) + ", " + q(field) + ", " + q(value) + "]"
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// Range returns the content-length-range, if the policy sets one.
func (p *Policy) Range() (lo, hi int64, ok bool) { return p.min, p.max, p.rangeSet }

// exempt reports whether a form field needs no condition.
func exempt(field string) bool {
	switch field {
	case "file", "policy", "x-amz-signature":
		return true
	}
	return strings.HasPrefix(field, "x-ignore-")
}

// Check checks a form against the policy at time now. form maps lower-case
// field names to values; the caller adds "bucket" (the bucket the request
// addresses) so that {"bucket": …} conditions are checked against it.
// Fields the caller passes in exemptFields (such as that synthetic
// "bucket") need no condition.
func (p *Policy) Check(now time.Time, form map[string]string, exemptFields ...string) error {
	if !now.Before(p.Expiration) {
		return denied("Policy expired.")
	}
	covered := make(map[string]bool, len(p.conditions))
	for _, c := range p.conditions {
		covered[c.field] = true
		v := form[c.field]
		ok := false
		switch c.op {
		case opEq:
			ok = v == c.value
		case opStartsWith:
			ok = strings.HasPrefix(v, c.value)
			if !ok && c.field == "content-type" && strings.Contains(v, ",") {
				// S3 checks each of a comma-separated list of types.
				ok = true
				for _, part := range strings.Split(v, ",") {
					ok = ok && strings.HasPrefix(strings.TrimSpace(part), c.value)
				}
			}
		}
		if !ok {
			return denied("Policy Condition failed: %s", c.text)
		}
	}
	var extra []string
	for f := range form {
		if !covered[f] && !exempt(f) && !contains(exemptFields, f) {
			extra = append(extra, f)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return denied("Extra input fields: %s", strings.Join(extra, ", "))
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
