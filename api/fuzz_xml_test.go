package api

import (
	"github.com/objectgateway/objectgateway/pkg/access"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/objectlock"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/sse"
)

// wantCodes fails unless err is an S3 error with one of codes.
func wantCodes(t *testing.T, err error, codes ...s3err.Code) {
	t.Helper()
	got := s3err.As(err).Code
	for _, c := range codes {
		if got == c {
			return
		}
	}
	t.Fatalf("error %v (code %s), want one of %v", err, got, codes)
}

// FuzzParseDeleteRequest checks that a DeleteObjects body either fails
// with MalformedXML or yields between 1 and 1000 keys, never panics, and
// reads as xml.Unmarshal read it (referenceDeleteRequest) unless it is
// over a limit of the token reader.
func FuzzParseDeleteRequest(f *testing.F) {
	f.Add([]byte(`<Delete><Object><Key>a</Key></Object></Delete>`))                                                                                                     // minimal
	f.Add([]byte(`<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Quiet>true</Quiet><Object><Key>a&amp;b</Key><VersionId>null</VersionId></Object></Delete>`)) // namespace, quiet, escaped key
	f.Add([]byte(`<Delete><Quiet>maybe</Quiet><Object><Key>a</Key></Object></Delete>`))                                                                                 // bad boolean
	f.Add([]byte(`<Delete></Delete>`))                                                                                                                                  // no objects
	f.Add([]byte(`<!DOCTYPE d [<!ENTITY e "x">]><Delete><Object><Key>&e;</Key></Object></Delete>`))                                                                     // internal entity
	f.Add([]byte(`<Delete><Object><Key>&#0;</Key></Object></Delete>`))                                                                                                  // NUL reference
	f.Add([]byte(`<Delete><Object><Key>` + "\xff" + `</Key></Object></Delete>`))                                                                                        // invalid UTF-8
	f.Add([]byte(`<Delete><Object><Key>a</Key><VersionId/></Object></Delete>`))                                                                                         // empty version id
	f.Add([]byte(`<Delete><Object>`))                                                                                                                                   // truncated
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := parseDeleteRequest(body)
		if !beyondStreamingLimits(err, nil) {
			want, wantErr := referenceDeleteRequest(body)
			if !sameAnswer(err, wantErr) || (err == nil && !reflect.DeepEqual(req, want)) {
				t.Fatalf("parsed %+v, %v; xml.Unmarshal: %+v, %v", req, err, want, wantErr)
			}
		}
		if err != nil {
			wantCodes(t, err, s3err.MalformedXML)
			return
		}
		if n := len(req.Objects); n < 1 || n > maxDeleteKeys {
			t.Fatalf("accepted %d keys", n)
		}
	})
}

// FuzzParseCompleteRequest checks that a CompleteMultipartUpload body
// either fails with MalformedXML (InvalidArgument over 10,000 parts) or
// yields 1 to 10,000 parts, each checksum under a known algorithm, never
// panics, and reads as xml.Unmarshal read it (referenceCompleteRequest)
// unless it is over a limit of the token reader.
func FuzzParseCompleteRequest(f *testing.F) {
	f.Add([]byte(`<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"abc"</ETag></Part></CompleteMultipartUpload>`))                                                                      // minimal
	f.Add([]byte(`<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>e</ETag><ChecksumCRC32>AAAAAA==</ChecksumCRC32><ChecksumSHA256>x</ChecksumSHA256></Part></CompleteMultipartUpload>`)) // checksums
	f.Add([]byte(`<CompleteMultipartUpload><Part><PartNumber>99999999999999999999</PartNumber></Part></CompleteMultipartUpload>`))                                                                     // overflowing number
	f.Add([]byte(`<CompleteMultipartUpload><Part><PartNumber>-1</PartNumber></Part><Part><PartNumber>0</PartNumber></Part></CompleteMultipartUpload>`))                                                // non-positive numbers
	f.Add([]byte(`<CompleteMultipartUpload/>`))                                                                                                                                                        // no parts
	f.Add([]byte(`<CompleteMultipartUpload><Part><PartNumber>1`))                                                                                                                                      // truncated
	f.Fuzz(func(t *testing.T, body []byte) {
		parts, err := parseCompleteRequest(body)
		if !beyondStreamingLimits(err, s3err.Newf(s3err.InvalidArgument, "Part number must be an integer between 1 and 10000, inclusive")) {
			want, wantErr := referenceCompleteRequest(body)
			if !sameAnswer(err, wantErr) || (err == nil && !reflect.DeepEqual(parts, want)) {
				t.Fatalf("parsed %+v, %v; xml.Unmarshal: %+v, %v", parts, err, want, wantErr)
			}
		}
		if err != nil {
			wantCodes(t, err, s3err.MalformedXML, s3err.InvalidArgument)
			return
		}
		if len(parts) > object.MaxParts {
			t.Fatalf("accepted %d parts", len(parts))
		}
		if len(parts) == 0 {
			t.Fatal("accepted no parts")
		}
		for _, p := range parts {
			for alg := range p.Checksums {
				switch alg {
				case "CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256":
				default:
					t.Fatalf("checksum under %q", alg)
				}
			}
		}
	})
}

// FuzzParseTaggingBody checks that a Tagging body either fails with
// MalformedXML or InvalidTag, or yields a sorted tag set within S3's
// limits: at most 10 tags, unique keys of 1 to 128 characters without
// "aws:", values of at most 256; and that it reads as xml.Unmarshal read
// it (referenceTags) unless it is over a limit of the token reader.
func FuzzParseTaggingBody(f *testing.F) {
	f.Add([]byte(`<Tagging><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tagging>`))                                         // minimal
	f.Add([]byte(`<Tagging><TagSet><Tag><Key>b</Key><Value></Value></Tag><Tag><Key>a</Key><Value>x y</Value></Tag></TagSet></Tagging>`)) // unsorted, empty value
	f.Add([]byte(`<Tagging><TagSet><Tag><Key>k</Key></Tag><Tag><Key>k</Key></Tag></TagSet></Tagging>`))                                  // duplicate keys
	f.Add([]byte(`<Tagging><TagSet><Tag><Key>aws:x</Key><Value>v</Value></Tag></TagSet></Tagging>`))                                     // reserved prefix
	f.Add([]byte(`<Tagging><TagSet><Tag><Key>` + strings.Repeat("é", 129) + `</Key></Tag></TagSet></Tagging>`))                          // 129 characters
	f.Add([]byte(`<Tagging><TagSet><Tag><Key>&lt;</Key></Tag></TagSet></Tagging>`))                                                      // forbidden character
	f.Add([]byte(`<Tagging><TagSet><Tag><Key>k</Key><Value>&#x1F600;</Value></Tag></TagSet></Tagging>`))                                 // character reference
	f.Add([]byte(`<Tagging><TagSet>`))                                                                                                   // truncated
	f.Add([]byte(`<Tagging><Tag><Key>k</Key></Tag></Tagging>`))                                                                          // no TagSet
	f.Fuzz(func(t *testing.T, body []byte) {
		tags, err := parseTaggingBody(body)
		if !beyondStreamingLimits(err, tooManyTags(maxTags, "Object")) {
			want, wantErr := referenceTags(body, maxTags, "Object")
			if !sameAnswer(err, wantErr) || !slices.Equal(tags, want) {
				t.Fatalf("parsed %q, %v; xml.Unmarshal: %q, %v", tags, err, want, wantErr)
			}
		}
		if err != nil {
			wantCodes(t, err, s3err.MalformedXML, s3err.InvalidTag)
			return
		}
		if len(tags) > maxTags {
			t.Fatalf("accepted %d tags", len(tags))
		}
		for i, tg := range tags {
			if tg.Key == "" || utf8.RuneCountInString(tg.Key) > maxTagKeyLen || utf8.RuneCountInString(tg.Value) > maxTagValueLen || strings.HasPrefix(tg.Key, "aws:") {
				t.Fatalf("accepted tag %q=%q", tg.Key, tg.Value)
			}
			if i > 0 && tags[i-1].Key >= tg.Key {
				t.Fatalf("tags not sorted and unique: %q then %q", tags[i-1].Key, tg.Key)
			}
		}
	})
}

// TestXMLNoEntityExpansion proves what the attack table relies on: Go's
// encoding/xml expands only the predefined entities and character
// references. A DOCTYPE's entity declarations are skipped, so an entity
// bomb or an external entity is an undefined entity and the document is
// MalformedXML, whatever the parser.
func TestXMLNoEntityExpansion(t *testing.T) {
	bomb := `<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>`
	external := `<!DOCTYPE l [<!ENTITY c SYSTEM "file:///etc/passwd">]>`
	for _, dtd := range []string{bomb, external} {
		if _, err := parseDeleteRequest([]byte(dtd + `<Delete><Object><Key>&c;</Key></Object></Delete>`)); s3err.As(err).Code != s3err.MalformedXML {
			t.Errorf("DeleteObjects: %v", err)
		}
		if _, err := parseCompleteRequest([]byte(dtd + `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&c;</ETag></Part></CompleteMultipartUpload>`)); s3err.As(err).Code != s3err.MalformedXML {
			t.Errorf("CompleteMultipartUpload: %v", err)
		}
		if _, err := parseTaggingBody([]byte(dtd + `<Tagging><TagSet><Tag><Key>k</Key><Value>&c;</Value></Tag></TagSet></Tagging>`)); s3err.As(err).Code != s3err.MalformedXML {
			t.Errorf("PutObjectTagging: %v", err)
		}
		if _, err := parseVersioningConfiguration([]byte(dtd + `<VersioningConfiguration><Status>&c;</Status></VersioningConfiguration>`)); s3err.As(err).Code != s3err.MalformedXML {
			t.Errorf("PutBucketVersioning: %v", err)
		}
		if _, _, err := parseObjectLockConfiguration([]byte(dtd + `<ObjectLockConfiguration><ObjectLockEnabled>&c;</ObjectLockEnabled></ObjectLockConfiguration>`)); s3err.As(err).Code != s3err.MalformedXML {
			t.Errorf("PutObjectLockConfiguration: %v", err)
		}
		if _, err := parseRetentionBody([]byte(dtd+`<Retention><Mode>&c;</Mode></Retention>`), lockNow); s3err.As(err).Code != s3err.MalformedXML {
			t.Errorf("PutObjectRetention: %v", err)
		}
		if _, err := parseLegalHoldBody([]byte(dtd + `<LegalHold><Status>&c;</Status></LegalHold>`)); s3err.As(err).Code != s3err.MalformedXML {
			t.Errorf("PutObjectLegalHold: %v", err)
		}
	}
	// Without a reference to them, declared entities are simply ignored.
	req, err := parseDeleteRequest([]byte(bomb + `<Delete><Object><Key>k</Key></Object></Delete>`))
	if err != nil || len(req.Objects) != 1 || req.Objects[0].Key != "k" {
		t.Fatalf("DOCTYPE without references: %+v %v", req, err)
	}
}

// FuzzBucketTags parses PutBucketTagging bodies and checks that they read
// as xml.Unmarshal read them (referenceTags) unless over a limit of the
// token reader, and that an accepted tag set survives the bucket record's
// URL-query encoding (what GetBucketTagging reads back) unchanged.
func FuzzBucketTags(f *testing.F) {
	f.Add([]byte(`<Tagging><TagSet><Tag><Key>a=b</Key><Value>c+d e/f</Value></Tag><Tag><Key>k</Key><Value></Value></Tag></TagSet></Tagging>`))
	f.Add([]byte(`<Tagging><TagSet><Tag><Key>ü:@</Key><Value>%41</Value></Tag></TagSet></Tagging>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		tags, err := parseTags(body, maxBucketTags, "Bucket")
		if !beyondStreamingLimits(err, tooManyTags(maxBucketTags, "Bucket")) {
			want, wantErr := referenceTags(body, maxBucketTags, "Bucket")
			if !sameAnswer(err, wantErr) || !slices.Equal(tags, want) {
				t.Fatalf("parsed %q, %v; xml.Unmarshal: %q, %v", tags, err, want, wantErr)
			}
		}
		if err != nil {
			wantCodes(t, err, s3err.MalformedXML, s3err.InvalidTag)
			return
		}
		q := url.Values{}
		for _, kv := range tags {
			q.Set(kv.Key, kv.Value)
		}
		back, err := url.ParseQuery(q.Encode())
		if err != nil {
			t.Fatalf("stored tags %q do not parse: %v", q.Encode(), err)
		}
		if got := queryKVs(back); !slices.Equal(got, tags) {
			t.Fatalf("tags %q read back as %q", tags, got)
		}
	})
}

// FuzzParseACLBody feeds AccessControlPolicy bodies to readACLBody and
// the ACL they make (access.FromBody): it never panics, reads the owner
// and grants xml.Unmarshal reads (referenceACLBody) unless the body is
// over a limit of the token reader, fails only with MalformedXML,
// MalformedACLError or InvalidArgument (every email resolves here),
// and an ACL it accepts survives its stored form unchanged and is public
// only when the body names a group of everyone.
func FuzzParseACLBody(f *testing.F) {
	const owner = "75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a"
	grant := func(typ, who, perm string) string {
		return `<Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="` + typ + `">` + who + `</Grantee><Permission>` + perm + `</Permission></Grant>`
	}
	f.Add([]byte(`<AccessControlPolicy><Owner><ID>` + owner + `</ID></Owner><AccessControlList>` +
		grant("CanonicalUser", "<ID>"+owner+"</ID>", "FULL_CONTROL") + `</AccessControlList></AccessControlPolicy>`)) // the private ACL
	f.Add([]byte(`<AccessControlPolicy><AccessControlList>` + grant("CanonicalUser", "<ID>"+owner+"</ID>", "FULL_CONTROL") +
		grant("Group", "<URI>"+access.AllUsers+"</URI>", "READ") + `</AccessControlList></AccessControlPolicy>`)) // public-read, no Owner
	f.Add([]byte(`<AccessControlPolicy><AccessControlList>` + grant("Group", "<URI>"+access.AuthenticatedUsers+"</URI>", "WRITE") +
		grant("AmazonCustomerByEmail", "<EmailAddress>a@example.com</EmailAddress>", "READ_ACP") + `</AccessControlList></AccessControlPolicy>`)) // group and email grantees
	f.Add([]byte(`<AccessControlPolicy><AccessControlList><Grant><Grantee><ID>x</ID></Grantee></Grant>`)) // no type, truncated
	// No grants: stored as access.NoGrants, not as the private ACL.
	f.Add([]byte(`<AccessControlPolicy><Owner><ID>` + owner + `</ID></Owner><AccessControlList></AccessControlList></AccessControlPolicy>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		gotOwner, grants, err := readACLBody(body)
		if !beyondStreamingLimits(err, s3err.New(s3err.MalformedACLError)) {
			wantOwner, wantGrants, wantErr := referenceACLBody(body)
			if !sameAnswer(err, wantErr) || (err == nil && (gotOwner != wantOwner || !slices.Equal(grants, wantGrants))) {
				t.Fatalf("parsed %q %v, %v; xml.Unmarshal: %q %v, %v", gotOwner, grants, err, wantOwner, wantGrants, wantErr)
			}
		}
		if err != nil {
			wantCodes(t, err, s3err.MalformedXML, s3err.MalformedACLError)
			return
		}
		a, err := access.FromBody(grants, func(string) (string, bool) { return owner, true })
		if err != nil {
			wantCodes(t, err, s3err.MalformedACLError, s3err.InvalidArgument)
			return
		}
		if back := access.ParseStored(a.String()); !slices.Equal(back.Grants, a.Grants) {
			t.Fatalf("stored form %q reads back as %v, not %v", a.String(), back.Grants, a.Grants)
		}
		if a.Public() && !strings.Contains(string(body), "Users") && !strings.Contains(string(body), "&") {
			t.Fatalf("public grant read from a body without a group of everyone: %q", body)
		}
	})
}

// FuzzParseLocationConstraint feeds CreateBucketConfiguration bodies to
// parseLocationConstraint: it never panics, fails only with MalformedXML,
// and reads the constraint xml.Unmarshal read (referenceLocationConstraint)
// unless the body is over a limit of the token reader.
func FuzzParseLocationConstraint(f *testing.F) {
	f.Add([]byte(`<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>`)) // as SDKs send it
	f.Add([]byte(`<CreateBucketConfiguration><LocationConstraint>a<x>b</x>c</LocationConstraint><LocationConstraint>d</LocationConstraint></CreateBucketConfiguration>`))      // nested element, repeated element
	f.Add([]byte(`<?xml version="1.0"?><!-- c --><CreateBucketConfiguration><Location><Name>x</Name></Location></CreateBucketConfiguration>trailing<`))                        // prolog, unknown element, trailing bytes
	f.Add([]byte(`<Other><LocationConstraint>x</LocationConstraint></Other>`))                                                                                                 // wrong root
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := parseLocationConstraint(body)
		if !beyondStreamingLimits(err, nil) {
			want, wantErr := referenceLocationConstraint(body)
			if !sameAnswer(err, wantErr) || (err == nil && got != want) {
				t.Fatalf("parsed %q, %v; xml.Unmarshal: %q, %v", got, err, want, wantErr)
			}
		}
		if err != nil {
			wantCodes(t, err, s3err.MalformedXML)
		}
	})
}

// FuzzParseVersioningConfiguration feeds PutBucketVersioning bodies to
// parseVersioningConfiguration: it never panics, fails only with
// MalformedXML or (MFA Delete) NotImplemented, accepts only Enabled and
// Suspended, which render and parse back unchanged, and reads as
// xml.Unmarshal read (referenceVersioning) unless the body is over a
// limit of the token reader.
func FuzzParseVersioningConfiguration(f *testing.F) {
	f.Add([]byte(`<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>`)) // as SDKs send it
	f.Add([]byte(`<VersioningConfiguration><MfaDelete>Disabled</MfaDelete><Status>Suspended</Status></VersioningConfiguration>`))                // MFA Delete off
	f.Add([]byte(`<VersioningConfiguration><Status>Enabled</Status><MfaDelete>Enabled</MfaDelete></VersioningConfiguration>`))                   // MFA Delete on
	f.Add([]byte(`<VersioningConfiguration><Status>En<!-- c -->abled</Status><Status>Bad</Status></VersioningConfiguration>`))                   // split text, repeated element
	f.Add([]byte(`<VersioningConfiguration/>`))                                                                                                  // empty
	f.Add([]byte(`<VersioningConfiguration><Status>Enabled`))                                                                                    // truncated
	f.Fuzz(func(t *testing.T, body []byte) {
		status, err := parseVersioningConfiguration(body)
		if !beyondStreamingLimits(err, nil) {
			want, wantErr := referenceVersioning(body)
			if !sameAnswer(err, wantErr) || status != want {
				t.Fatalf("parsed %q, %v; xml.Unmarshal: %q, %v", status, err, want, wantErr)
			}
		}
		if err != nil {
			wantCodes(t, err, s3err.MalformedXML, s3err.NotImplemented)
			return
		}
		if status != versioningEnabled && status != versioningSuspended {
			t.Fatalf("accepted status %q", status)
		}
		if back, err := parseVersioningConfiguration(appendVersioningConfiguration(nil, status)); err != nil || back != status {
			t.Fatalf("status %q read back as %q, %v", status, back, err)
		}
	})
}

// FuzzParseEncryptionConfig feeds PutBucketEncryption bodies to
// parseEncryptionConfig: it never panics, fails only with MalformedXML,
// InvalidArgument or (dual-layer) NotImplemented, accepts only AES256
// without a key or aws:kms, and reads as xml.Unmarshal read
// (referenceEncryptionConfig) unless the body is over a limit of the token
// reader.
func FuzzParseEncryptionConfig(f *testing.F) {
	f.Add([]byte(`<ServerSideEncryptionConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault><BucketKeyEnabled>false</BucketKeyEnabled></Rule></ServerSideEncryptionConfiguration>`))                 // as SDKs send it
	f.Add([]byte(`<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>aws:kms</SSEAlgorithm><KMSMasterKeyID>arn:aws:kms:us-east-1:1:key/k</KMSMasterKeyID></ApplyServerSideEncryptionByDefault><BucketKeyEnabled> true </BucketKeyEnabled></Rule></ServerSideEncryptionConfiguration>`)) // KMS key ARN, bucket key
	f.Add([]byte(`<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm><KMSMasterKeyID>k</KMSMasterKeyID></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>`))                                                                         // key without KMS
	f.Add([]byte(`<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule><Rule/></ServerSideEncryptionConfiguration>`))                                                                                                    // two rules
	f.Add([]byte(`<ServerSideEncryptionConfiguration><Rule><BucketKeyEnabled>maybe</BucketKeyEnabled><ApplyServerSideEncryptionByDefault><SSEAlgorithm>aws:kms:dsse</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>`))                                                           // bad boolean
	f.Add([]byte(`<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES<x/>256</SSEAlgorithm></ApplyServerSideEncryptionByDefault><ApplyServerSideEncryptionByDefault/></Rule></ServerSideEncryptionConfiguration>`))                                                                  // nested element, repeated default
	f.Add([]byte(`<ServerSideEncryptionConfiguration><Rule>`))                                                                                                                                                                                                                                                                  // truncated
	f.Fuzz(func(t *testing.T, body []byte) {
		alg, keyID, bucketKey, err := parseEncryptionConfig(body)
		if !beyondStreamingLimits(err, nil) {
			wantAlg, wantKey, wantBucketKey, wantErr := referenceEncryptionConfig(body)
			if !sameAnswer(err, wantErr) || alg != wantAlg || keyID != wantKey || bucketKey != wantBucketKey {
				t.Fatalf("parsed %q %q %v, %v; xml.Unmarshal: %q %q %v, %v", alg, keyID, bucketKey, err, wantAlg, wantKey, wantBucketKey, wantErr)
			}
		}
		if err != nil {
			wantCodes(t, err, s3err.MalformedXML, s3err.InvalidArgument, s3err.NotImplemented)
			return
		}
		if alg != sse.AES256 && alg != sse.KMS || alg == sse.AES256 && keyID != "" {
			t.Fatalf("accepted %q with key %q", alg, keyID)
		}
	})
}

// FuzzParseObjectLockConfiguration feeds PutObjectLockConfiguration
// bodies to parseObjectLockConfiguration: it never panics, fails only with
// MalformedXML or InvalidArgument, accepts only a default retention with a
// known mode and one period within S3's limits, which renders and parses
// back unchanged, and reads as xml.Unmarshal read (referenceObjectLock)
// unless the body is over a limit of the token reader.
func FuzzParseObjectLockConfiguration(f *testing.F) {
	f.Add([]byte(`<ObjectLockConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>1</Days></DefaultRetention></Rule></ObjectLockConfiguration>`))   // as SDKs send it
	f.Add([]byte(`<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled></ObjectLockConfiguration>`))                                                                                                                                          // no default
	f.Add([]byte(`<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>COMPLIANCE</Mode><Years>101</Years></DefaultRetention></Rule></ObjectLockConfiguration>`))                                               // over the limit
	f.Add([]byte(`<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>1</Days><Years>1</Years></DefaultRetention></Rule></ObjectLockConfiguration>`))                                   // both periods
	f.Add([]byte(`<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Days>0</Days></DefaultRetention></Rule><Rule><DefaultRetention><Mode>GOVERNANCE</Mode></DefaultRetention></Rule></ObjectLockConfiguration>`)) // repeated rule
	f.Add([]byte(`<ObjectLockConfiguration><ObjectLockEnabled>Disabled</ObjectLockEnabled></ObjectLockConfiguration>`))                                                                                                                                         // disabled
	f.Add([]byte(`<ObjectLockConfiguration><Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>-99999999999999999999</Days>`))                                                                                                                                 // truncated, overflowing
	f.Fuzz(func(t *testing.T, body []byte) {
		enabled, def, err := parseObjectLockConfiguration(body)
		if !beyondStreamingLimits(err, nil) {
			wantEnabled, want, wantErr := referenceObjectLock(body)
			if !sameAnswer(err, wantErr) || enabled != wantEnabled || def != want {
				t.Fatalf("parsed %v, %+v, %v; xml.Unmarshal: %v, %+v, %v", enabled, def, err, wantEnabled, want, wantErr)
			}
		}
		if err != nil {
			wantCodes(t, err, s3err.MalformedXML, s3err.InvalidArgument)
			return
		}
		if !enabled {
			t.Fatal("accepted a configuration that does not enable Object Lock")
		}
		if !def.IsZero() {
			periodOK := def.Days > 0 && def.Days <= objectlock.MaxDays && def.Years == 0 ||
				def.Years > 0 && def.Years <= objectlock.MaxYears && def.Days == 0
			if def.Mode != objectlock.Governance && def.Mode != objectlock.Compliance || !periodOK {
				t.Fatalf("accepted default retention %+v", def)
			}
		}
		if e, back, err := parseObjectLockConfiguration(appendObjectLockConfiguration(nil, enabled, def)); err != nil || !e || back != def {
			t.Fatalf("default %+v read back as %v, %+v, %v", def, e, back, err)
		}
	})
}

// FuzzParseRetentionBody feeds PutObjectRetention bodies to
// parseRetentionBody: it never panics, fails only with MalformedXML or
// (a date not in the future) InvalidArgument, accepts only no retention
// or a known mode with a date after now, which renders (to the
// millisecond) and parses back unchanged, and reads as xml.Unmarshal read
// (referenceRetention) unless the body is over a limit of the token
// reader.
func FuzzParseRetentionBody(f *testing.F) {
	f.Add([]byte(`<Retention xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Mode>GOVERNANCE</Mode><RetainUntilDate>2026-12-31T00:00:00Z</RetainUntilDate></Retention>`)) // as SDKs send it
	f.Add([]byte(`<Retention><Mode>COMPLIANCE</Mode><RetainUntilDate>2026-12-31T00:00:00.123456789+14:00</RetainUntilDate></Retention>`))                                  // nanoseconds, offset
	f.Add([]byte(`<Retention/>`))                                                                                                                                          // removal
	f.Add([]byte(`<Retention><Mode>GOVERNANCE</Mode></Retention>`))                                                                                                        // mode alone
	f.Add([]byte(`<Retention><Mode>GOVERNANCE</Mode><RetainUntilDate>2020-01-01T00:00:00Z</RetainUntilDate></Retention>`))                                                 // past
	f.Add([]byte(`<Retention><Mode>governance</Mode><RetainUntilDate>2026-02-30T00:00:00Z</RetainUntilDate></Retention>`))                                                 // lower case, no such day
	f.Add([]byte(`<Retention><Mode>GOVERNANCE</Mode><RetainUntilDate>2026-06-01T12:00:00.0001Z</RetainUntilDate></Retention>`))                                            // just after now
	f.Add([]byte(`<Retention><Mode>COMPLIANCE`))                                                                                                                           // truncated
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := parseRetentionBody(body, lockNow)
		if !beyondStreamingLimits(err, nil) {
			want, wantErr := referenceRetention(body, lockNow)
			if !sameAnswer(err, wantErr) || r.Mode != want.Mode || !r.Until.Equal(want.Until) {
				t.Fatalf("parsed %+v, %v; xml.Unmarshal: %+v, %v", r, err, want, wantErr)
			}
		}
		if err != nil {
			wantCodes(t, err, s3err.MalformedXML, s3err.InvalidArgument)
			return
		}
		if r.IsZero() {
			return
		}
		if r.Mode != objectlock.Governance && r.Mode != objectlock.Compliance || !r.Until.After(lockNow) {
			t.Fatalf("accepted retention %+v", r)
		}
		ms := r.Until.Truncate(time.Millisecond)
		if !ms.After(lockNow) {
			return // rendered to the millisecond, the date is no longer in the future
		}
		if back, err := parseRetentionBody(appendRetention(nil, r), lockNow); err != nil || back.Mode != r.Mode || !back.Until.Equal(ms) {
			t.Fatalf("retention %+v read back as %+v, %v", r, back, err)
		}
	})
}

// FuzzParseLegalHoldBody feeds PutObjectLegalHold bodies to
// parseLegalHoldBody: it never panics, fails only with MalformedXML, what
// it accepts renders and parses back unchanged, and it reads as
// xml.Unmarshal read (referenceLegalHold) unless the body is over a limit
// of the token reader.
func FuzzParseLegalHoldBody(f *testing.F) {
	f.Add([]byte(`<LegalHold xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>ON</Status></LegalHold>`)) // as SDKs send it
	f.Add([]byte(`<LegalHold><Status>OFF</Status></LegalHold>`))                                                // lifted
	f.Add([]byte(`<LegalHold><Status>O<x>y</x>N</Status></LegalHold>`))                                         // nested element in the text
	f.Add([]byte(`<LegalHold><Status>on</Status></LegalHold>`))                                                 // lower case
	f.Add([]byte(`<LegalHold/>`))                                                                               // no status
	f.Fuzz(func(t *testing.T, body []byte) {
		on, err := parseLegalHoldBody(body)
		if !beyondStreamingLimits(err, nil) {
			want, wantErr := referenceLegalHold(body)
			if !sameAnswer(err, wantErr) || on != want {
				t.Fatalf("parsed %v, %v; xml.Unmarshal: %v, %v", on, err, want, wantErr)
			}
		}
		if err != nil {
			wantCodes(t, err, s3err.MalformedXML)
			return
		}
		if back, err := parseLegalHoldBody(appendLegalHold(nil, on)); err != nil || back != on {
			t.Fatalf("legal hold %v read back as %v, %v", on, back, err)
		}
	})
}
