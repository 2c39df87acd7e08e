package api

import (
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
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

// FuzzParseACLBody feeds AccessControlPolicy bodies (PutBucketAcl,
// PutObjectAcl) to parseACLBody: it never panics, fails only with
// MalformedXML, NotImplemented or (over 100 grants) MalformedACLError,
// reports a public grant only when the body names the AllUsers group, and
// answers as the xml.Unmarshal parser did (referenceACLBody) unless the
// body is over a limit of the token reader.
func FuzzParseACLBody(f *testing.F) {
	const owner = "75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a"
	grant := func(typ, who, perm string) string {
		return `<Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="` + typ + `">` + who + `</Grantee><Permission>` + perm + `</Permission></Grant>`
	}
	f.Add([]byte(`<AccessControlPolicy><Owner><ID>` + owner + `</ID></Owner><AccessControlList>` +
		grant("CanonicalUser", "<ID>"+owner+"</ID>", "FULL_CONTROL") + `</AccessControlList></AccessControlPolicy>`))
	f.Add([]byte(`<AccessControlPolicy><AccessControlList>` + grant("CanonicalUser", "<ID>"+owner+"</ID>", "FULL_CONTROL") +
		grant("Group", "<URI>"+allUsers+"</URI>", "READ") + `</AccessControlList></AccessControlPolicy>`))
	f.Add([]byte(`<AccessControlPolicy><AccessControlList>` + grant("Group", "<URI>"+allUsers+"</URI>", "WRITE") + `</AccessControlList></AccessControlPolicy>`))
	f.Add([]byte(`<AccessControlPolicy><AccessControlList><Grant><Grantee><ID>x</ID></Grantee></Grant>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		public, err := parseACLBody(body, owner, "a bucket")
		if !beyondStreamingLimits(err, s3err.New(s3err.MalformedACLError)) {
			want, wantErr := referenceACLBody(body, owner, "a bucket")
			if !sameAnswer(err, wantErr) || public != want {
				t.Fatalf("parsed %v, %v; xml.Unmarshal: %v, %v", public, err, want, wantErr)
			}
		}
		if err != nil {
			wantCodes(t, err, s3err.MalformedXML, s3err.NotImplemented, s3err.MalformedACLError)
			return
		}
		if public && !strings.Contains(string(body), "AllUsers") && !strings.Contains(string(body), "&") {
			t.Fatalf("public grant read from a body without AllUsers: %q", body)
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
