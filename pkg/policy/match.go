package policy

import (
	"strings"
	"unicode/utf8"
)

// segKind says what one piece of a compiled pattern matches.
type segKind uint8

const (
	// segLit matches its text exactly (or ignoring case, see caseMode).
	segLit segKind = iota
	// segStar matches any run of characters, '/' and ':' included.
	segStar
	// segOne matches one character: a UTF-8 sequence, or one byte that
	// is not valid UTF-8.
	segOne
	// segVar matches the value of a policy variable, literally.
	segVar
)

// seg is one piece of a compiled pattern. For segVar, lit is the
// normalised condition key and def the default value, if hasDef.
type seg struct {
	kind   segKind
	lit    string
	def    string
	hasDef bool
}

// caseMode says how literal pieces compare.
type caseMode uint8

const (
	exactCase caseMode = iota
	ignoreCase
)

// compileMode says which special forms a pattern text may contain.
type compileMode struct {
	// wildcards makes '*' and '?' match runs and single characters.
	wildcards bool
	// variables makes ${key} a policy variable (Version 2012-10-17).
	variables bool
}

// compile splits a pattern text into pieces. Text that is not a valid
// special form (an unterminated "${") is literal.
func compile(text string, m compileMode) []seg {
	var out []seg
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, seg{kind: segLit, lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case m.wildcards && c == '*':
			flush()
			// Adjacent stars match what one star matches.
			if n := len(out); n == 0 || out[n-1].kind != segStar {
				out = append(out, seg{kind: segStar})
			}
			i++
			continue
		case m.wildcards && c == '?':
			flush()
			out = append(out, seg{kind: segOne})
			i++
			continue
		case m.variables && c == '$' && strings.HasPrefix(text[i:], "${"):
			end := strings.IndexByte(text[i:], '}')
			if end < 0 {
				break
			}
			body := strings.TrimSpace(text[i+2 : i+end])
			i += end + 1
			switch body {
			case "*", "?", "$":
				// The escapes IAM defines for characters that would
				// otherwise be special.
				lit.WriteString(body)
				continue
			}
			flush()
			s := seg{kind: segVar}
			if key, def, ok := strings.Cut(body, ","); ok {
				def = strings.TrimSpace(def)
				if len(def) >= 2 && def[0] == '\'' && def[len(def)-1] == '\'' {
					s.def, s.hasDef = def[1:len(def)-1], true
				}
				body = strings.TrimSpace(key)
			}
			s.lit = normKey(body)
			out = append(out, s)
			continue
		}
		lit.WriteByte(c)
		i++
	}
	flush()
	return out
}

// hasVars reports whether a compiled pattern refers to a policy variable.
func hasVars(segs []seg) bool {
	for _, s := range segs {
		if s.kind == segVar {
			return true
		}
	}
	return false
}

// hasWild reports whether a compiled pattern has a wildcard.
func hasWild(segs []seg) bool {
	for _, s := range segs {
		if s.kind == segStar || s.kind == segOne {
			return true
		}
	}
	return false
}

// matchSegs reports whether s matches the compiled pattern segs. Policy
// variables take their values from r (a nil r resolves none); a variable
// without a value and without a default matches nothing. It is the
// classic greedy match that backtracks to the last star only, so it runs
// in O(len(segs)·len(s)) at worst, without recursion or allocation.
func matchSegs(segs []seg, s string, r *Request, cm caseMode) bool {
	i, k := 0, 0
	star, mark := -1, 0
	for {
		if i < len(segs) {
			sg := &segs[i]
			switch sg.kind {
			case segStar:
				star, mark = i, k
				i++
				continue
			case segOne:
				if k < len(s) {
					_, n := utf8.DecodeRuneInString(s[k:])
					i++
					k += n
					continue
				}
			default:
				lit := sg.lit
				if sg.kind == segVar {
					v, ok := r.variable(sg)
					if !ok {
						return false
					}
					lit = v
				}
				if hasPrefix(s[k:], lit, cm) {
					i++
					k += len(lit)
					continue
				}
			}
		} else if k == len(s) {
			return true
		}
		// Let the last star absorb one more character, never half of one.
		if star < 0 || mark >= len(s) {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[mark:])
		mark += n
		i, k = star+1, mark
	}
}

func hasPrefix(s, prefix string, cm caseMode) bool {
	if len(s) < len(prefix) {
		return false
	}
	if cm == ignoreCase {
		return strings.EqualFold(s[:len(prefix)], prefix)
	}
	return s[:len(prefix)] == prefix
}

// match reports whether key matches an IAM wildcard pattern: '*' matches
// any run of characters (including '/'), '?' any single character (a UTF-8
// sequence, or one byte that is not valid UTF-8), everything else itself.
func match(pattern, key string) bool {
	return matchSegs(compile(pattern, compileMode{wildcards: true}), key, nil, exactCase)
}

// normKey returns the form condition keys are compared in: IAM compares
// key names without regard to case, but the part after the first '/'
// (a tag key, as in s3:ExistingObjectTag/Project) is kept as written.
func normKey(key string) string {
	name, rest, ok := strings.Cut(key, "/")
	name = strings.ToLower(name)
	if !ok {
		return name
	}
	return name + "/" + rest
}
