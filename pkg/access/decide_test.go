package access

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/policy"
)

const (
	ownerKey = "AKIDALICE"
	otherKey = "AKIDBOB"
	bucket   = "shared"
)

func mustParse(t testing.TB, doc string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse([]byte(doc), bucket)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, doc)
	}
	return p
}

// operations lists every operation of the table that is decided on a
// bucket (ListBuckets is not), sorted, so that the matrix below covers
// each.
func operations() []string {
	ops := make([]string, 0, len(actions))
	for op := range actions {
		if op != "ListBuckets" {
			ops = append(ops, op)
		}
	}
	sort.Strings(ops)
	return ops
}

// objectOperation reports whether an operation addresses an object (the
// matrix asks about key "pub/k" for those).
func objectOperation(op string) bool {
	a, _ := ActionOf(op, false)
	switch a {
	case "s3:PutObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts", "s3:DeleteObject":
		return true
	}
	return strings.Contains(op, "Object") && !strings.HasPrefix(op, "ListObject") && !strings.Contains(op, "LockConfiguration")
}

// TestDecisionMatrix asks Decide about every operation for each kind of
// caller under representative bucket states. Each case writes out the
// operations each caller is allowed; every other operation must be
// denied, and "deny" lists those denied explicitly (by a Deny statement)
// rather than for want of an Allow.
func TestDecisionMatrix(t *testing.T) {
	everything := operations()
	without := func(all []string, drop ...string) []string {
		var out []string
		for _, op := range all {
			if !slices.Contains(drop, op) {
				out = append(out, op)
			}
		}
		return out
	}
	// reads is what the canned ACL public-read of a bucket gives
	// everyone: listing, not reading objects.
	reads := []string{"HeadBucket", "ListMultipartUploads", "ListObjectVersions", "ListObjects", "ListObjectsV2"}
	// writes is what a bucket ACL's WRITE gives: writing and deleting
	// objects, and uploading in parts; not aborting or listing the parts
	// of uploads the grantee did not initiate (TestDecideInitiator).
	writes := []string{"CompleteMultipartUpload", "CopyObject", "CreateMultipartUpload", "DeleteObject", "DeleteObjects", "PostObject", "PutObject", "UploadPart", "UploadPartCopy"}
	// objectReads is what an object ACL's READ gives.
	objectReads := []string{"GetObject", "HeadObject"}
	// ownerOnForeign is what the bucket's owner may do to an object
	// another user owns without a grant of its ACL.
	ownerOnForeign := without(everything, "GetObject", "HeadObject", "GetObjectAcl", "PutObjectAcl", "GetObjectAttributes", "GetObjectTagging", "PutObjectTagging", "DeleteObjectTagging")
	publicRead, _ := Canned("public-read", CanonicalID(ownerKey), CanonicalID(ownerKey))
	objectPublicRead, _ := Canned("public-read", CanonicalID(otherKey), CanonicalID(ownerKey))
	bobWrites := &ACL{Grants: []Grant{{ID: CanonicalID(ownerKey), Permission: FullControl}, {ID: CanonicalID(otherKey), Permission: Write}}}
	signedRead := &ACL{Grants: []Grant{{ID: CanonicalID(ownerKey), Permission: FullControl}, {Group: true, ID: AuthenticatedUsers, Permission: Read}, {Group: true, ID: AuthenticatedUsers, Permission: ReadACP}}}
	bobFull := &ACL{Grants: []Grant{{ID: CanonicalID(ownerKey), Permission: FullControl}, {ID: CanonicalID(otherKey), Permission: FullControl}}}
	putOps := []string{"CompleteMultipartUpload", "CopyObject", "CreateMultipartUpload", "PostObject", "PutObject", "UploadPart", "UploadPartCopy"}
	type want struct{ allow, deny []string }
	cases := []struct {
		name   string
		bucket Bucket
		// object is the addressed object's owner and ACL, for the
		// object operations; nil is an object the bucket owner owns.
		object *Object
		cond   policy.Conditions
		// by caller: root, owner, other, anonymous.
		root, owner, other, anon want
	}{
		{
			name:   "private",
			bucket: Bucket{Name: bucket, Owner: ownerKey},
			root:   want{allow: everything}, owner: want{allow: everything},
		},
		{
			name:   "root-owned",
			bucket: Bucket{Name: bucket},
			root:   want{allow: everything},
		},
		{
			name:   "bucket ACL public-read: everyone lists, nobody else reads objects",
			bucket: Bucket{Name: bucket, Owner: ownerKey, ACL: publicRead},
			root:   want{allow: everything}, owner: want{allow: everything},
			other: want{allow: reads}, anon: want{allow: reads},
		},
		{
			name: "policy: everyone reads pub/",
			bucket: Bucket{Name: bucket, Owner: ownerKey, Policy: mustParse(t, `{"Version":"2012-10-17","Statement":[
				{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/pub/*"}]}`)},
			root: want{allow: everything}, owner: want{allow: everything},
			other: want{allow: []string{"GetObject", "HeadObject"}}, anon: want{allow: []string{"GetObject", "HeadObject"}},
		},
		{
			name: "policy: deny deletes to everyone",
			bucket: Bucket{Name: bucket, Owner: ownerKey, Policy: mustParse(t, `{"Version":"2012-10-17","Statement":[
				{"Effect":"Deny","Principal":"*","Action":["s3:DeleteObject*","s3:DeleteBucket"],"Resource":["arn:aws:s3:::shared","arn:aws:s3:::shared/*"]}]}`)},
			root:  want{allow: everything},
			owner: want{allow: without(everything, "DeleteObject", "DeleteObjects", "DeleteObjectTagging", "DeleteBucket"), deny: []string{"DeleteObject", "DeleteObjects", "DeleteObjectTagging", "DeleteBucket"}},
			other: want{deny: []string{"DeleteObject", "DeleteObjects", "DeleteObjectTagging", "DeleteBucket"}},
			anon:  want{deny: []string{"DeleteObject", "DeleteObjects", "DeleteObjectTagging", "DeleteBucket"}},
		},
		{
			name: "policy: deny all to everyone (the owner keeps the policy)",
			bucket: Bucket{Name: bucket, Owner: ownerKey, Policy: mustParse(t, `{"Version":"2012-10-17","Statement":[
				{"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["arn:aws:s3:::shared","arn:aws:s3:::shared/*"]}]}`)},
			root:  want{allow: everything},
			owner: want{allow: []string{"DeleteBucketPolicy", "GetBucketPolicy", "PutBucketPolicy"}, deny: without(everything, "DeleteBucketPolicy", "GetBucketPolicy", "PutBucketPolicy")},
			other: want{deny: everything},
			anon:  want{deny: everything},
		},
		{
			name: "policy: another user may write and list under pub/",
			bucket: Bucket{Name: bucket, Owner: ownerKey, Policy: mustParse(t, `{"Version":"2012-10-17","Statement":[
				{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::shared/pub/*"},
				{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam:::user/AKIDBOB"]},"Action":"s3:ListBucket","Resource":"arn:aws:s3:::shared","Condition":{"StringLike":{"s3:prefix":"pub/*"}}}]}`)},
			cond: policy.Conditions{"s3:prefix": {"pub/x"}},
			root: want{allow: everything}, owner: want{allow: everything},
			other: want{allow: append([]string{"HeadBucket", "ListObjects", "ListObjectsV2"}, putOps...)},
		},
		{
			name: "policy: anonymous reads only from 10.0.0.0/8, not from elsewhere",
			bucket: Bucket{Name: bucket, Owner: ownerKey, Policy: mustParse(t, `{"Version":"2012-10-17","Statement":[
				{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}]}`)},
			cond: policy.Conditions{"aws:sourceip": {"192.0.2.1"}},
			root: want{allow: everything}, owner: want{allow: everything},
		},
		{
			name: "policy: anonymous reads from 10.0.0.0/8",
			bucket: Bucket{Name: bucket, Owner: ownerKey, Policy: mustParse(t, `{"Version":"2012-10-17","Statement":[
				{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}]}`)},
			cond: policy.Conditions{"aws:sourceip": {"10.1.2.3"}},
			root: want{allow: everything}, owner: want{allow: everything},
			other: want{allow: []string{"GetObject", "HeadObject"}}, anon: want{allow: []string{"GetObject", "HeadObject"}},
		},
		{
			name:   "bucket ACL public-read under IgnorePublicAcls",
			bucket: Bucket{Name: bucket, Owner: ownerKey, ACL: publicRead, Block: PublicAccessBlock{IgnorePublicAcls: true}},
			root:   want{allow: everything}, owner: want{allow: everything},
		},
		{
			name:   "bucket ACL grants another user WRITE",
			bucket: Bucket{Name: bucket, Owner: ownerKey, ACL: bobWrites},
			root:   want{allow: everything}, owner: want{allow: everything},
			other: want{allow: writes},
		},
		{
			name:   "bucket ACL grants another user FULL_CONTROL",
			bucket: Bucket{Name: bucket, Owner: ownerKey, ACL: bobFull},
			root:   want{allow: everything}, owner: want{allow: everything},
			other: want{allow: append([]string{"GetBucketAcl", "PutBucketAcl"}, append(writes, reads...)...)},
		},
		{
			name:   "bucket ACL grants signed users READ and READ_ACP",
			bucket: Bucket{Name: bucket, Owner: ownerKey, ACL: signedRead},
			root:   want{allow: everything}, owner: want{allow: everything},
			other: want{allow: append([]string{"GetBucketAcl"}, reads...)},
		},
		{
			// An AccessControlPolicy with an empty list removes the
			// owner's grant too: the owner needs none.
			name:   "bucket ACL without grants",
			bucket: Bucket{Name: bucket, Owner: ownerKey, ACL: &ACL{}},
			root:   want{allow: everything}, owner: want{allow: everything},
		},
		{
			name:   "bucket ACL grants ignored under BucketOwnerEnforced",
			bucket: Bucket{Name: bucket, Owner: ownerKey, ACL: bobFull, Ownership: BucketOwnerEnforced},
			root:   want{allow: everything}, owner: want{allow: everything},
		},
		{
			name:   "object the bucket owner owns, with an object ACL public-read",
			bucket: Bucket{Name: bucket, Owner: ownerKey},
			object: &Object{ACL: publicRead},
			root:   want{allow: everything}, owner: want{allow: everything},
			other: want{allow: objectReads}, anon: want{allow: objectReads},
		},
		{
			name:   "object ACL public-read under IgnorePublicAcls",
			bucket: Bucket{Name: bucket, Owner: ownerKey, Block: PublicAccessBlock{IgnorePublicAcls: true}},
			object: &Object{ACL: publicRead},
			root:   want{allow: everything}, owner: want{allow: everything},
		},
		{
			name:   "object another user wrote (ObjectWriter), private",
			bucket: Bucket{Name: bucket, Owner: ownerKey},
			object: &Object{Owner: otherKey},
			root:   want{allow: everything}, owner: want{allow: ownerOnForeign},
			other: want{allow: []string{"GetObject", "HeadObject", "GetObjectAcl", "PutObjectAcl"}},
		},
		{
			name:   "object the bucket owner owns, object ACL without grants",
			bucket: Bucket{Name: bucket, Owner: ownerKey},
			object: &Object{ACL: &ACL{}},
			root:   want{allow: everything}, owner: want{allow: everything},
		},
		{
			// The object's owner keeps READ_ACP and WRITE_ACP; reading
			// it is the ACL's to grant, as for an ACL that leaves its
			// owner out.
			name:   "object another user wrote, object ACL without grants",
			bucket: Bucket{Name: bucket, Owner: ownerKey},
			object: &Object{Owner: otherKey, ACL: &ACL{}},
			root:   want{allow: everything}, owner: want{allow: ownerOnForeign},
			other: want{allow: []string{"GetObjectAcl", "PutObjectAcl"}},
		},
		{
			name:   "object another user wrote, public-read",
			bucket: Bucket{Name: bucket, Owner: ownerKey},
			object: &Object{Owner: otherKey, ACL: objectPublicRead},
			root:   want{allow: everything}, owner: want{allow: append(ownerOnForeign, objectReads...)},
			other: want{allow: []string{"GetObject", "HeadObject", "GetObjectAcl", "PutObjectAcl"}}, anon: want{allow: objectReads},
		},
		{
			// The bucket owner's policy grants on its own objects only: an
			// object another user owns is granted by its ACL, as S3 has
			// it for an object of another account.
			name: "object another user wrote, private, bucket policy grants everyone reads",
			bucket: Bucket{Name: bucket, Owner: ownerKey, Policy: mustParse(t, `{"Version":"2012-10-17","Statement":[
				{"Effect":"Allow","Principal":"*","Action":["s3:GetObject","s3:GetObjectAcl","s3:GetObjectTagging","s3:GetObjectAttributes"],"Resource":"arn:aws:s3:::shared/*"}]}`)},
			object: &Object{Owner: otherKey},
			root:   want{allow: everything}, owner: want{allow: ownerOnForeign},
			other: want{allow: []string{"GetObject", "HeadObject", "GetObjectAcl", "PutObjectAcl"}},
		},
		{
			name:   "object another user wrote, under BucketOwnerEnforced: the bucket owner's",
			bucket: Bucket{Name: bucket, Owner: ownerKey, Ownership: BucketOwnerEnforced},
			object: &Object{Owner: otherKey, ACL: objectPublicRead},
			root:   want{allow: everything}, owner: want{allow: everything},
		},
		{
			name: "policy Deny beats an object ACL grant",
			bucket: Bucket{Name: bucket, Owner: ownerKey, Policy: mustParse(t, `{"Version":"2012-10-17","Statement":[
				{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/*"}]}`)},
			object: &Object{ACL: publicRead},
			root:   want{allow: everything},
			owner:  want{allow: without(everything, objectReads...), deny: objectReads},
			other:  want{deny: objectReads}, anon: want{deny: objectReads},
		},
		{
			name: "public policy under RestrictPublicBuckets: signed users only",
			bucket: Bucket{Name: bucket, Owner: ownerKey, Block: PublicAccessBlock{RestrictPublicBuckets: true}, Policy: mustParse(t, `{"Version":"2012-10-17","Statement":[
				{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/pub/*"}]}`)},
			root: want{allow: everything}, owner: want{allow: everything},
			other: want{allow: []string{"GetObject", "HeadObject"}},
		},
		{
			name: "policy: deny writes without TLS, the public-read ACL still reads",
			bucket: Bucket{Name: bucket, Owner: ownerKey, ACL: publicRead, Policy: mustParse(t, `{"Version":"2012-10-17","Statement":[
				{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::shared/*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`)},
			cond:  policy.Conditions{"aws:securetransport": {"false"}},
			root:  want{allow: everything},
			owner: want{allow: without(everything, putOps...), deny: putOps},
			other: want{allow: reads, deny: putOps}, anon: want{allow: reads, deny: putOps},
		},
	}
	for _, tc := range cases {
		for _, who := range []struct {
			name   string
			caller Caller
			want   want
		}{
			{"root", NewCaller("AKIDROOT", true), tc.root},
			{"owner", NewCaller(ownerKey, false), tc.owner},
			{"other", NewCaller(otherKey, false), tc.other},
			{"anonymous", NewCaller("", false), tc.anon},
		} {
			for _, op := range everything {
				action, _ := ActionOf(op, false)
				key := ""
				if objectOperation(op) {
					key = "pub/k"
				}
				in := Input{Caller: who.caller, Principal: who.caller.Principal(), Action: action, Bucket: &tc.bucket, Key: key, Conditions: tc.cond}
				if key != "" {
					in.Object = tc.object
				}
				want := ImplicitDeny
				switch {
				case slices.Contains(who.want.allow, op):
					want = Allowed
				case slices.Contains(who.want.deny, op):
					want = ExplicitDeny
				}
				if got := Decide(&in); got != want {
					t.Errorf("%s: %s by %s (%s on %q): %v, want %v", tc.name, op, who.name, action, key, got, want)
				}
			}
		}
	}
}

// TestDecideVersionActions checks that a request naming a version is
// decided by the version action: a policy that publishes the current
// objects does not publish what was overwritten or deleted.
func TestDecideVersionActions(t *testing.T) {
	b := Bucket{Name: bucket, Owner: ownerKey, Policy: mustParse(t, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/*"},
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:GetObjectVersion","Resource":"arn:aws:s3:::shared/*"}]}`)}
	for _, tc := range []struct {
		caller  Caller
		version bool
		want    Decision
	}{
		{NewCaller("", false), false, Allowed},
		{NewCaller("", false), true, ImplicitDeny},
		{NewCaller(otherKey, false), true, Allowed},
		{NewCaller("AKIDCAROL", false), true, ImplicitDeny},
	} {
		action, _ := ActionOf("GetObject", tc.version)
		in := Input{Caller: tc.caller, Principal: tc.caller.Principal(), Action: action, Bucket: &b, Key: "k"}
		if got := Decide(&in); got != tc.want {
			t.Errorf("%s by %q: %v, want %v", action, tc.caller.AccessKey, got, tc.want)
		}
	}
}

// TestDecideWriteGrantVersions checks that a bucket ACL's WRITE, to a
// user or to everyone (public-read-write), deletes objects but not their
// versions: S3 maps WRITE to s3:PutObject and s3:DeleteObject, and to
// s3:DeleteObjectVersion only for the bucket's owner. A bucket policy may
// still grant the version action.
func TestDecideWriteGrantVersions(t *testing.T) {
	bobWrites := &ACL{Grants: []Grant{{ID: CanonicalID(ownerKey), Permission: FullControl}, {ID: CanonicalID(otherKey), Permission: Write}}}
	bobFull := &ACL{Grants: []Grant{{ID: CanonicalID(ownerKey), Permission: FullControl}, {ID: CanonicalID(otherKey), Permission: FullControl}}}
	publicWrite, _ := Canned("public-read-write", CanonicalID(ownerKey), CanonicalID(ownerKey))
	granted := mustParse(t, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:DeleteObjectVersion","Resource":"arn:aws:s3:::shared/*"}]}`)
	for _, tc := range []struct {
		name   string
		bucket Bucket
		caller Caller
		want   Decision
	}{
		{"WRITE to bob", Bucket{Name: bucket, Owner: ownerKey, ACL: bobWrites}, NewCaller(otherKey, false), ImplicitDeny},
		{"FULL_CONTROL to bob", Bucket{Name: bucket, Owner: ownerKey, ACL: bobFull}, NewCaller(otherKey, false), ImplicitDeny},
		{"public-read-write, anonymous", Bucket{Name: bucket, Owner: ownerKey, ACL: publicWrite}, NewCaller("", false), ImplicitDeny},
		{"public-read-write, a user", Bucket{Name: bucket, Owner: ownerKey, ACL: publicWrite}, NewCaller(otherKey, false), ImplicitDeny},
		{"the bucket's owner", Bucket{Name: bucket, Owner: ownerKey, ACL: bobWrites}, NewCaller(ownerKey, false), Allowed},
		{"a policy grants bob the version action", Bucket{Name: bucket, Owner: ownerKey, ACL: bobWrites, Policy: granted}, NewCaller(otherKey, false), Allowed},
	} {
		for _, version := range []bool{false, true} {
			action, _ := ActionOf("DeleteObject", version)
			in := Input{Caller: tc.caller, Principal: tc.caller.Principal(), Action: action, Bucket: &tc.bucket, Key: "k"}
			want := tc.want
			if !version {
				want = Allowed // DeleteObject: WRITE's, and the owner's
			}
			if got := Decide(&in); got != want {
				t.Errorf("%s: %s: %v, want %v", tc.name, action, got, want)
			}
		}
	}
}

// TestDecideInitiator checks that a multipart upload's initiator may
// abort it and list its parts without a grant, as in S3, and that a
// bucket ACL's WRITE does not let anyone else do so; a policy's Deny
// still binds the initiator, and its Allow still grants others.
func TestDecideInitiator(t *testing.T) {
	bobWrites := &ACL{Grants: []Grant{{ID: CanonicalID(ownerKey), Permission: FullControl}, {ID: CanonicalID(otherKey), Permission: Write}}}
	publicWrite, _ := Canned("public-read-write", CanonicalID(ownerKey), CanonicalID(ownerKey))
	deny := mustParse(t, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Deny","Principal":"*","Action":"s3:AbortMultipartUpload","Resource":"arn:aws:s3:::shared/*"}]}`)
	allowCarol := mustParse(t, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDCAROL"},"Action":["s3:AbortMultipartUpload","s3:ListMultipartUploadParts"],"Resource":"arn:aws:s3:::shared/*"}]}`)
	for _, tc := range []struct {
		name      string
		bucket    Bucket
		caller    Caller
		initiator string
		want      Decision
	}{
		{"WRITE grantee, another's upload", Bucket{Name: bucket, Owner: ownerKey, ACL: bobWrites}, NewCaller(otherKey, false), ownerKey, ImplicitDeny},
		{"WRITE grantee, its own upload", Bucket{Name: bucket, Owner: ownerKey, ACL: bobWrites}, NewCaller(otherKey, false), otherKey, Allowed},
		{"anonymous, public-read-write", Bucket{Name: bucket, Owner: ownerKey, ACL: publicWrite}, NewCaller("", false), "", ImplicitDeny},
		{"initiator without any grant", Bucket{Name: bucket, Owner: ownerKey}, NewCaller(otherKey, false), otherKey, Allowed},
		{"bucket owner, another's upload", Bucket{Name: bucket, Owner: ownerKey}, NewCaller(ownerKey, false), otherKey, Allowed},
		{"policy grants another user", Bucket{Name: bucket, Owner: ownerKey, Policy: allowCarol}, NewCaller("AKIDCAROL", false), otherKey, Allowed},
	} {
		for _, op := range []string{"AbortMultipartUpload", "ListParts"} {
			action, _ := ActionOf(op, false)
			in := Input{Caller: tc.caller, Principal: tc.caller.Principal(), Action: action, Bucket: &tc.bucket, Key: "k", Initiator: tc.initiator}
			if got := Decide(&in); got != tc.want {
				t.Errorf("%s: %s: %v, want %v", tc.name, op, got, tc.want)
			}
		}
	}
	b := Bucket{Name: bucket, Owner: ownerKey, Policy: deny}
	c := NewCaller(otherKey, false)
	in := Input{Caller: c, Principal: c.Principal(), Action: "s3:AbortMultipartUpload", Bucket: &b, Key: "k", Initiator: otherKey}
	if got := Decide(&in); got != ExplicitDeny {
		t.Errorf("initiator under a policy denying the abort: %v, want ExplicitDeny", got)
	}
}

// TestPrincipalNames checks the names a policy may give a user: its
// access key id in a user ARN without an account, and its canonical id.
func TestPrincipalNames(t *testing.T) {
	for _, principal := range []string{
		`{"AWS":"arn:aws:iam:::user/AKIDBOB"}`,
		`{"AWS":"` + CanonicalID(otherKey) + `"}`,
		`{"CanonicalUser":"` + CanonicalID(otherKey) + `"}`,
		`"*"`,
	} {
		b := Bucket{Name: bucket, Owner: ownerKey, Policy: mustParse(t, `{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Principal":`+principal+`,"Action":"s3:PutObject","Resource":"arn:aws:s3:::shared/*"}]}`)}
		c := NewCaller(otherKey, false)
		in := Input{Caller: c, Principal: c.Principal(), Action: "s3:PutObject", Bucket: &b, Key: "k"}
		if got := Decide(&in); got != Allowed {
			t.Errorf("Principal %s: %v, want Allowed", principal, got)
		}
		c = NewCaller("AKIDCAROL", false)
		in.Caller, in.Principal = c, c.Principal()
		want := ImplicitDeny
		if principal == `"*"` {
			want = Allowed
		}
		if got := Decide(&in); got != want {
			t.Errorf("Principal %s, another user: %v, want %v", principal, got, want)
		}
	}
}

// BenchmarkDecide20Statements measures one decision against a bucket
// policy of 20 statements with conditions, the figure the package must
// keep within 2 µs.
func BenchmarkDecide20Statements(b *testing.B) {
	var st []string
	for i := 0; i < 19; i++ {
		st = append(st, `{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/U`+strings.Repeat("X", i+1)+`"},"Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::shared/p`+strings.Repeat("q", i)+`/*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"},"StringLike":{"aws:UserAgent":"*sdk*"}}}`)
	}
	st = append(st, `{"Effect":"Deny","Principal":"*","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::shared/*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}`)
	bk := Bucket{Name: bucket, Owner: ownerKey, Policy: mustParse(b, `{"Version":"2012-10-17","Statement":[`+strings.Join(st, ",")+`]}`)}
	c := NewCaller(otherKey, false)
	cs := policy.Conditions{}
	cs.Set("aws:SourceIp", "10.1.2.3")
	cs.Set("aws:UserAgent", "aws-sdk-go-v2/1.0")
	cs.Set("aws:SecureTransport", "true")
	in := Input{Caller: c, Principal: c.Principal(), Action: "s3:GetObject", Bucket: &bk, Key: "pqqq/object", Conditions: cs}
	b.ReportAllocs()
	for b.Loop() {
		if Decide(&in) != ImplicitDeny {
			b.Fatal("allowed")
		}
	}
}

// TestPublicAccessBlockRefusals checks the writes Block Public Access
// refuses: a public policy under BlockPublicPolicy (a policy granting only
// named users is not public), a public ACL under BlockPublicAcls.
func TestPublicAccessBlockRefusals(t *testing.T) {
	public := mustParse(t, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/*"}]}`)
	named := mustParse(t, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/*"}]}`)
	on := PublicAccessBlock{BlockPublicAcls: true, BlockPublicPolicy: true}
	if !on.RefusesPolicy(public) || on.RefusesPolicy(named) || (PublicAccessBlock{}).RefusesPolicy(public) {
		t.Error("BlockPublicPolicy refuses the wrong policies")
	}
	publicACL, _ := Canned("authenticated-read", CanonicalID(ownerKey), CanonicalID(ownerKey))
	private := Private(CanonicalID(ownerKey))
	if !on.RefusesACL(publicACL) || on.RefusesACL(private) || on.RefusesACL(nil) || (PublicAccessBlock{}).RefusesACL(publicACL) {
		t.Error("BlockPublicAcls refuses the wrong ACLs")
	}
}
