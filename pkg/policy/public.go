package policy

// IsPublic reports whether the policy is public by S3's definition (the
// answer of GetBucketPolicyStatus, and what Block Public Access refuses):
// some Allow statement grants to everyone — Principal "*" or {"AWS":"*"}
// (an Allow cannot have a NotPrincipal) — without a Condition that pins one of the keys S3
// trusts to fixed values. Those keys are aws:SourceIp (IpAddress over
// CIDR blocks other than 0.0.0.0/0 and ::/0), aws:SourceArn,
// aws:SourceVpc, aws:SourceVpce, aws:SourceOwner, aws:SourceAccount,
// aws:PrincipalArn, aws:PrincipalAccount, aws:PrincipalOrgID,
// s3:x-amz-server-side-encryption-aws-kms-key-id, s3:DataAccessPointArn,
// s3:DataAccessPointAccount and aws:userid; fixed means compared with
// StringEquals, StringEqualsIgnoreCase, StringLike, ArnEquals or ArnLike
// (without IfExists or ForAllValues:, which let a request without the key
// through) to values without wildcards or policy variables. Deny
// statements never make a policy public; identity policies are never
// public. A nil Policy is not public.
func (p *Policy) IsPublic() bool {
	if p == nil || p.kind != Bucket {
		return false
	}
	for i := range p.stmts {
		st := &p.stmts[i]
		if st.deny || st.principal == nil {
			continue
		}
		if !st.principal.any {
			continue
		}
		restricted := false
		for j := range st.conditions {
			if st.conditions[j].restrictsToFixed() {
				restricted = true
				break
			}
		}
		if !restricted {
			return true
		}
	}
	return false
}

// restrictsToFixed reports whether c admits only requests that carry one
// of S3's trusted keys with fixed values.
func (c *condition) restrictsToFixed() bool {
	if c.negated || c.ifExists || c.set == forAllValues {
		return false
	}
	switch c.key {
	case "aws:sourceip":
		if c.op != opIP || len(c.prefixes) == 0 {
			return false
		}
		for _, p := range c.prefixes {
			if p.Bits() == 0 {
				return false
			}
		}
		return true
	case "aws:sourcearn", "aws:sourcevpc", "aws:sourcevpce", "aws:sourceowner", "aws:sourceaccount",
		"aws:principalarn", "aws:principalaccount", "aws:principalorgid",
		"s3:x-amz-server-side-encryption-aws-kms-key-id", "s3:dataaccesspointarn",
		"s3:dataaccesspointaccount", "aws:userid":
	default:
		return false
	}
	switch c.op {
	case opString, opStringFold, opStringLike:
		if len(c.strs) == 0 {
			return false
		}
		for _, s := range c.strs {
			if hasVars(s) || hasWild(s) {
				return false
			}
		}
		return true
	case opArn:
		if len(c.arns) == 0 {
			return false
		}
		for _, a := range c.arns {
			for _, s := range a {
				if hasVars(s) || hasWild(s) {
					return false
				}
			}
		}
		return true
	}
	return false
}
