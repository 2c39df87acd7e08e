package policy

import "testing"

func TestIsPublic(t *testing.T) {
	const get = `"Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*"`
	cases := []struct {
		name, stmt string
		want       bool
	}{
		{"Principal *", `{"Effect":"Allow","Principal":"*",` + get + `}`, true},
		{"AWS *", `{"Effect":"Allow","Principal":{"AWS":["*"]},` + get + `}`, true},
		{"a fixed user", `{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:user/x"},` + get + `}`, false},
		{"an account", `{"Effect":"Allow","Principal":{"AWS":"123456789012"},` + get + `}`, false},
		{"a service", `{"Effect":"Allow","Principal":{"Service":"logging.s3.amazonaws.com"},` + get + `}`, false},
		{"Deny to everyone", `{"Effect":"Deny","Principal":"*",` + get + `}`, false},
		{"CIDR", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"IpAddress":{"aws:SourceIp":["192.0.2.0/24","2001:db8::/32"]}}}`, false},
		{"CIDR of everything", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"IpAddress":{"aws:SourceIp":["192.0.2.0/24","0.0.0.0/0"]}}}`, true},
		{"NotIpAddress", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"NotIpAddress":{"aws:SourceIp":"192.0.2.0/24"}}}`, true},
		{"IpAddressIfExists", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"IpAddressIfExists":{"aws:SourceIp":"192.0.2.0/24"}}}`, true},
		{"fixed SourceVpce", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringEquals":{"aws:SourceVpce":"vpce-1a2b3c4d"}}}`, false},
		{"SourceVpc by wildcard", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringLike":{"aws:SourceVpc":"vpc-*"}}}`, true},
		{"fixed SourceArn", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"ArnEquals":{"aws:SourceArn":"arn:aws:cloudfront::123456789012:distribution/E1"}}}`, false},
		{"SourceArn by wildcard", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"ArnLike":{"aws:SourceArn":"arn:aws:cloudfront::*:distribution/*"}}}`, true},
		{"fixed SourceAccount", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringEquals":{"aws:SourceAccount":"123456789012"}}}`, false},
		{"fixed PrincipalOrgID", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringEquals":{"aws:PrincipalOrgID":"o-abc"}}}`, false},
		{"fixed userid", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringEquals":{"aws:userid":"AIDAX"}}}`, false},
		{"userid by a variable", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringEquals":{"aws:userid":"${aws:username}"}}}`, true},
		{"StringNotEquals SourceVpce", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringNotEquals":{"aws:SourceVpce":"vpce-1"}}}`, true},
		{"ForAllValues SourceVpce", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"ForAllValues:StringEquals":{"aws:SourceVpce":"vpce-1"}}}`, true},
		{"a condition S3 does not trust", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringLike":{"aws:Referer":"https://example.com/*"}}}`, true},
		{"a trusted key among others", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringLike":{"aws:Referer":"https://example.com/*"},"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}`, false},
		{"fixed KMS key", `{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringEquals":{"s3:x-amz-server-side-encryption-aws-kms-key-id":"arn:aws:kms:eu-west-1:123456789012:key/k"}}}`, false},
	}
	for _, c := range cases {
		p := mustParse(t, doc(c.stmt))
		if got := p.IsPublic(); got != c.want {
			t.Errorf("%s: IsPublic = %v, want %v", c.name, got, c.want)
		}
	}
	// One public statement makes the policy public.
	p := mustParse(t, doc(cases[2].stmt, `{"Effect":"Allow","Principal":"*","Action":"s3:ListBucket","Resource":"arn:aws:s3:::site"}`))
	if !p.IsPublic() {
		t.Error("a policy with one public statement is public")
	}
	var none *Policy
	if none.IsPublic() {
		t.Error("a nil policy is not public")
	}
}
