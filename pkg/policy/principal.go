package policy

import (
	"encoding/json"
	"strings"
)

// principalSet is a compiled Principal or NotPrincipal element.
type principalSet struct {
	// any is set by "*" and {"AWS":"*"}: everyone, anonymous included.
	any bool
	// users are IAM user ARNs; an empty account matches every account.
	users []userRef
	// accounts are account ids, from "arn:aws:iam::ID:root" or a bare
	// 12-digit id: every principal of the account.
	accounts []string
	// canonical are canonical user ids.
	canonical []string
}

type userRef struct{ account, name string }

// principal reads the Principal or NotPrincipal of a statement: required
// in a bucket policy, refused in an identity policy.
func (ps *parser) principal(st *statement, m map[string]json.RawMessage) error {
	v, has := m["Principal"]
	nv, hasNot := m["NotPrincipal"]
	if ps.kind == Identity {
		if has || hasNot {
			return malformed("Policy document should not specify a principal.")
		}
		return nil
	}
	switch {
	case has && hasNot:
		return malformed("A statement cannot have both Principal and NotPrincipal")
	case hasNot && !st.deny && ps.stored:
		// Stored before the rule below: the statement grants nothing
		// (an empty principal set matches no caller).
		if _, err := parsePrincipal(nv); err != nil {
			return err
		}
		st.principal = &principalSet{}
		return nil
	case hasNot && !st.deny:
		// IAM: "NotPrincipal must be used with "Effect":"Deny". Using it
		// with "Effect":"Allow" is not supported." Such a statement would
		// allow everyone but the principals it names, anonymous callers
		// included.
		return malformed("Invalid principal in policy: NotPrincipal must be used with \"Effect\":\"Deny\"")
	case hasNot:
		st.notPrincipal = true
		v = nv
	case !has:
		return malformed("Missing required field Principal")
	}
	set, err := parsePrincipal(v)
	if err != nil {
		return err
	}
	st.principal = set
	return nil
}

func parsePrincipal(raw json.RawMessage) (*principalSet, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s != "*" {
			return nil, malformed("Invalid principal in policy: %q", s)
		}
		return &principalSet{any: true}, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || len(m) == 0 {
		return nil, malformed("Invalid principal in policy")
	}
	set := &principalSet{}
	for _, k := range sortedKeys(m) {
		ids, err := stringOrList(m[k], "Principal "+k)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if err := set.add(k, id); err != nil {
				return nil, err
			}
		}
	}
	return set, nil
}

// add adds one principal id of the given type ("AWS", "CanonicalUser",
// "Service" or "Federated").
func (set *principalSet) add(typ, id string) error {
	bad := func() error { return malformed("Invalid principal in policy: %q", id) }
	switch typ {
	case "AWS":
		if id == "*" {
			set.any = true
			return nil
		}
		if strings.ContainsAny(id, "*?") {
			return bad()
		}
		if isCanonicalID(id) {
			set.canonical = append(set.canonical, id)
			return nil
		}
		if isAccountID(id) {
			set.accounts = append(set.accounts, id)
			return nil
		}
		rest, ok := strings.CutPrefix(id, "arn:aws:iam::")
		if !ok {
			return bad()
		}
		account, res, ok := strings.Cut(rest, ":")
		if !ok || (account != "" && !isAccountID(account)) {
			return bad()
		}
		if res == "root" && account != "" {
			set.accounts = append(set.accounts, account)
			return nil
		}
		path, ok := strings.CutPrefix(res, "user/")
		if !ok {
			return bad()
		}
		// A user ARN may carry an IAM path (user/division/NAME); the
		// name is its last element.
		name := path[strings.LastIndexByte(path, '/')+1:]
		if name == "" {
			return bad()
		}
		set.users = append(set.users, userRef{account: account, name: name})
	case "CanonicalUser":
		if !isCanonicalID(id) {
			return bad()
		}
		set.canonical = append(set.canonical, id)
	case "Service", "Federated":
		// Accepted as AWS accepts them; no request to the gateway is
		// made by a service or a federated identity, so they never
		// match.
		if id == "" {
			return bad()
		}
	default:
		return malformed("Invalid principal in policy: unknown principal type %s", typ)
	}
	return nil
}

// matches reports whether the request's principal is in the set.
func (set *principalSet) matches(p *Principal) bool {
	if set.any {
		return true
	}
	if p.Kind == Anonymous {
		return false
	}
	if p.Kind == User {
		for _, u := range set.users {
			if u.name == p.Username && (u.account == "" || u.account == p.Account) {
				return true
			}
		}
	}
	if p.Account != "" {
		for _, a := range set.accounts {
			if a == p.Account {
				return true
			}
		}
	}
	if p.CanonicalID != "" {
		for _, c := range set.canonical {
			if c == p.CanonicalID {
				return true
			}
		}
	}
	return false
}

func isAccountID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isCanonicalID reports whether s has the shape of an S3 canonical user
// id: 64 lower-case hexadecimal digits.
func isCanonicalID(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
