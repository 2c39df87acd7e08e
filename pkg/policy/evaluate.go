package policy

import "strings"

// PrincipalKind says who made a request.
type PrincipalKind uint8

const (
	// Anonymous is a request without credentials.
	Anonymous PrincipalKind = iota
	// User is a request signed by a user's key.
	User
	// Root is a request signed by the server's root credentials.
	Root
)

// Principal is the authenticated identity of a request, in the terms a
// policy's Principal element names it.
type Principal struct {
	Kind PrincipalKind
	// ARN is the principal's IAM ARN, arn:aws:iam::ACCOUNT:user/NAME or
	// arn:aws:iam::ACCOUNT:root.
	ARN string
	// CanonicalID is the 64-hex canonical user id.
	CanonicalID string
	// Username is the IAM user name (empty for Root and Anonymous).
	Username string
	// UserID is the unique id aws:userid names.
	UserID string
	// Account is the 12-digit account id; it may be empty.
	Account string
}

// Conditions holds a request's condition keys and their values; a key
// may have several values (s3:RequestObjectTagKeys). Keys are stored in
// the form normKey gives (IAM compares key names without regard to case),
// so they must be added with Set.
type Conditions map[string][]string

// Set sets key to values, replacing what it had.
func (c Conditions) Set(key string, values ...string) { c[normKey(key)] = values }

// Get returns the values of key and whether it is present.
func (c Conditions) Get(key string) ([]string, bool) {
	v, ok := c[normKey(key)]
	return v, ok
}

// Request is what a policy is asked about: who, which action on which
// resource, and the request's condition keys.
type Request struct {
	Principal Principal
	// Action is the AWS action name, as "s3:GetObject".
	Action string
	// Resource is the ARN of the bucket (arn:aws:s3:::bucket) or object
	// (arn:aws:s3:::bucket/key) the action is on.
	Resource string
	// Conditions are the request's condition keys; a key it lacks is
	// absent. A nil map has none.
	Conditions Conditions
}

// Decision is a policy's answer for a request.
type Decision uint8

const (
	// NoDecision means no statement applies: the request is neither
	// allowed nor denied by this policy.
	NoDecision Decision = iota
	// Allow means a statement allows the request and none denies it.
	Allow
	// Deny means a statement explicitly denies the request, which no
	// Allow anywhere can override.
	Deny
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "Allow"
	case Deny:
		return "Deny"
	}
	return "NoDecision"
}

// conditionMode says how statements' Condition elements are decided.
type conditionMode uint8

const (
	// knownContext evaluates conditions against the request's keys.
	knownContext conditionMode = iota
	// unknownContext is for a caller that cannot supply the keys: an
	// Allow with a Condition never applies, a Deny applies whatever its
	// Condition says. The answer then allows nothing that some context
	// would not allow.
	unknownContext
)

// Evaluate decides r with AWS's logic within one policy: any statement
// that applies and denies gives Deny; otherwise any that applies and
// allows gives Allow; otherwise NoDecision. A statement applies when its
// principal, action, resource and every condition match. A bucket policy
// says nothing about resources outside its bucket, whatever its patterns
// say. A nil Policy gives NoDecision. Evaluate does not allocate (policy
// variables are looked up and compared in place), except to report to
// itself that a request's value is not a number or a date.
func (p *Policy) Evaluate(r *Request) Decision {
	if p == nil {
		return NoDecision
	}
	return p.evaluate(r, knownContext)
}

func (p *Policy) evaluate(r *Request, cm conditionMode) Decision {
	if p.bucketARN != "" && !inBucket(r.Resource, p.bucketARN) {
		return NoDecision
	}
	d := NoDecision
	for i := range p.stmts {
		st := &p.stmts[i]
		if !st.deny && d == Allow {
			// Only a Deny can change the answer now.
			continue
		}
		if !st.applies(r, cm) {
			continue
		}
		if st.deny {
			return Deny
		}
		d = Allow
	}
	return d
}

// inBucket reports whether the ARN res is the bucket bucketARN or one of
// its objects.
func inBucket(res, bucketARN string) bool {
	rest, ok := strings.CutPrefix(res, bucketARN)
	return ok && (rest == "" || rest[0] == '/')
}

func (st *statement) applies(r *Request, cm conditionMode) bool {
	if st.principal != nil && st.principal.matches(&r.Principal) == st.notPrincipal {
		return false
	}
	if anyMatch(st.actions, r.Action, nil, ignoreCase) == st.notAction {
		return false
	}
	if anyMatch(st.resources, r.Resource, r, exactCase) == st.notResource {
		return false
	}
	if cm == unknownContext && len(st.conditions) > 0 {
		return st.deny
	}
	for i := range st.conditions {
		if !st.conditions[i].eval(r) {
			return false
		}
	}
	return true
}

// variable returns the value of a policy variable: the request's
// condition key of that name (its first value), else what the principal
// says for aws:username and aws:userid, else the variable's default.
func (r *Request) variable(s *seg) (string, bool) {
	if r == nil {
		return s.def, s.hasDef
	}
	if v := r.Conditions[s.lit]; len(v) > 0 {
		return v[0], true
	}
	switch s.lit {
	case "aws:username":
		if r.Principal.Username != "" {
			return r.Principal.Username, true
		}
	case "aws:userid":
		if r.Principal.UserID != "" {
			return r.Principal.UserID, true
		}
	}
	return s.def, s.hasDef
}

// PublicRead is the grant of the canned ACL public-read as the gateway
// has applied it so far: everyone may read every object and list the
// bucket.
func PublicRead() *Policy {
	all := []principalSet{{any: true}}
	star := [][]seg{{{kind: segStar}}}
	return &Policy{kind: Bucket, stmts: []statement{
		{principal: &all[0], actions: [][]seg{{{kind: segLit, lit: "s3:getobject"}}}, resources: star},
		{principal: &all[0], actions: [][]seg{{{kind: segLit, lit: "s3:listbucket"}}}, resources: star},
	}}
}

// Allows reports whether an anonymous request may perform action on the
// policy's bucket; key is the object key for GetObject and is ignored for
// ListBucket. The request's condition keys are unknown to this question,
// so an Allow with a Condition does not count and a Deny counts whatever
// its Condition: Allows is true only where Evaluate allows the request in
// every condition context. A nil Policy allows nothing.
func (p *Policy) Allows(action, key string) bool {
	if p == nil {
		return false
	}
	r := Request{Principal: Principal{Kind: Anonymous}, Action: action, Resource: p.bucketARN}
	if action == GetObject {
		r.Resource = p.bucketARN + "/" + key
	}
	return p.evaluate(&r, unknownContext) == Allow
}

// existingObjectTagKey is the normalised prefix of the
// s3:ExistingObjectTag/KEY condition keys.
const existingObjectTagKey = "s3:existingobjecttag/"

// UsesExistingObjectTags reports whether some statement consults an
// s3:ExistingObjectTag/KEY key, whose values are the tags of the object a
// request addresses: a Condition on it, or a policy variable of it
// (${s3:ExistingObjectTag/KEY}) in a Resource or a Condition's values. A
// caller reads the tags only for such a policy. A nil Policy has none.
func (p *Policy) UsesExistingObjectTags() bool {
	if p == nil {
		return false
	}
	for i := range p.stmts {
		st := &p.stmts[i]
		if existingObjectTagVar(st.resources) {
			return true
		}
		for j := range st.conditions {
			c := &st.conditions[j]
			if strings.HasPrefix(c.key, existingObjectTagKey) || existingObjectTagVar(c.strs) {
				return true
			}
			for _, arn := range c.arns {
				if existingObjectTagVar(arn) {
					return true
				}
			}
		}
	}
	return false
}

// existingObjectTagVar reports whether a compiled pattern of pats refers
// to a policy variable ${s3:ExistingObjectTag/KEY}.
func existingObjectTagVar(pats [][]seg) bool {
	for _, segs := range pats {
		for _, s := range segs {
			if s.kind == segVar && strings.HasPrefix(s.lit, existingObjectTagKey) {
				return true
			}
		}
	}
	return false
}

// UsesContext reports whether evaluating the policy can consult a
// request's condition keys: some statement has a Condition or a policy
// variable in its Resource. A caller whose keys cost something to gather
// may leave Request.Conditions nil for a policy without either; Evaluate
// answers the same.
func (p *Policy) UsesContext() bool {
	if p == nil {
		return false
	}
	for i := range p.stmts {
		st := &p.stmts[i]
		if len(st.conditions) > 0 {
			return true
		}
		for _, res := range st.resources {
			for _, s := range res {
				if s.kind == segVar {
					return true
				}
			}
		}
	}
	return false
}
