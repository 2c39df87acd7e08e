package api

import (
	"encoding/xml"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// S3's object tag limits.
const (
	maxTags        = 10
	maxTagKeyLen   = 128
	maxTagValueLen = 256
)

type tagging struct {
	XMLName xml.Name `xml:"Tagging"`
	NS      string   `xml:"xmlns,attr,omitempty"`
	TagSet  []tagXML `xml:"TagSet>Tag"`
}

type tagXML struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

// validTags checks object tags against S3's rules: at most 10, unique
// keys of 1 to 128 characters, values of up to 256, letters, digits,
// spaces and _ . : / = + - @ only, and no "aws:" prefix.
func validTags(tags []metadata.KV) error {
	return validTagSet(tags, maxTags, "Object")
}

// validTagSet is validTags with the limit of max tags of a kind ("Object",
// "Bucket").
func validTagSet(tags []metadata.KV, max int, kind string) error {
	if len(tags) > max {
		return tooManyTags(max, kind)
	}
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		switch {
		case t.Key == "" || utf8.RuneCountInString(t.Key) > maxTagKeyLen || !tagChars(t.Key):
			return s3err.Newf(s3err.InvalidTag, "The TagKey you have provided is invalid")
		case utf8.RuneCountInString(t.Value) > maxTagValueLen || !tagChars(t.Value):
			return s3err.Newf(s3err.InvalidTag, "The TagValue you have provided is invalid")
		case strings.HasPrefix(t.Key, "aws:"):
			return s3err.Newf(s3err.InvalidTag, "Your TagKey cannot be prefixed with aws:")
		case seen[t.Key]:
			return s3err.Newf(s3err.InvalidTag, "Cannot provide multiple Tags with the same key")
		}
		seen[t.Key] = true
	}
	return nil
}

// tooManyTags is S3's answer to more than max tags of a kind.
func tooManyTags(max int, kind string) error {
	return s3err.Newf(s3err.InvalidTag, "%s tags cannot be greater than %d", kind, max)
}

func tagChars(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsSpace(r) || strings.ContainsRune("_.:/=+-@", r) {
			continue
		}
		return false
	}
	return true
}

// parseTaggingHeader parses x-amz-tagging (URL query encoding).
func parseTaggingHeader(v string) ([]metadata.KV, error) {
	if v == "" {
		return nil, nil
	}
	q, err := url.ParseQuery(v)
	if err != nil {
		return nil, s3err.Newf(s3err.InvalidArgument, "The header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL query parameters without tag name duplicates.")
	}
	var tags []metadata.KV
	for k, vs := range q {
		if len(vs) > 1 {
			return nil, s3err.Newf(s3err.InvalidTag, "Cannot provide multiple Tags with the same key")
		}
		tags = append(tags, metadata.KV{Key: k, Value: vs[0]})
	}
	sortKVs(tags)
	return tags, validTags(tags)
}

// parseTaggingBody parses a PutObjectTagging body.
func parseTaggingBody(body []byte) ([]metadata.KV, error) {
	return parseTags(body, maxTags, "Object")
}

// errNoTagSet is the cause of the MalformedXML of a Tagging document
// without a TagSet, which S3's schema requires.
var errNoTagSet = errors.New("the Tagging document has no TagSet")

// parseTags parses a Tagging document of at most max tags of a kind. The
// max+1st Tag is InvalidTag as soon as it begins. A document without a
// TagSet is MalformedXML, as S3 answers it; an empty TagSet is a set of no
// tags.
func parseTags(body []byte, max int, kind string) ([]metadata.KV, error) {
	var tags []metadata.KV
	x := newXMLDoc(body, maxTagTokens(max))
	if err := x.root("Tagging"); err != nil {
		return nil, err
	}
	tagSet := false
	err := x.elements(func(e xml.StartElement) error {
		if e.Name.Local != "TagSet" {
			return x.skip()
		}
		tagSet = true
		return x.elements(func(e xml.StartElement) error {
			if e.Name.Local != "Tag" {
				return x.skip()
			}
			if len(tags) == max {
				return tooManyTags(max, kind)
			}
			t, err := parseTag(x)
			tags = append(tags, t)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	if !tagSet {
		return nil, malformed(errNoTagSet)
	}
	if err := validTagSet(tags, max, kind); err != nil {
		return nil, err
	}
	sortKVs(tags)
	return tags, nil
}

// parseTag reads the Tag element just opened.
func parseTag(x *xmlDoc) (t metadata.KV, err error) {
	err = x.elements(func(e xml.StartElement) error {
		var err error
		switch e.Name.Local {
		case "Key":
			t.Key, err = x.text()
		case "Value":
			t.Value, err = x.text()
		default:
			err = x.skip()
		}
		return err
	})
	return t, err
}

func sortKVs(kvs []metadata.KV) {
	for i := 1; i < len(kvs); i++ {
		for j := i; j > 0 && kvs[j].Key < kvs[j-1].Key; j-- {
			kvs[j], kvs[j-1] = kvs[j-1], kvs[j]
		}
	}
}

// getObjectTagging answers GetObjectTagging.
func (s *Server) getObjectTagging(w http.ResponseWriter, r *http.Request, rq *request) error {
	id, err := versionParam(rq.queryOf(r))
	if err != nil {
		return err
	}
	o, err := s.layer.StatVersion(rq.bucket, rq.key, id)
	if err != nil {
		return err
	}
	out := tagging{NS: s3NS, TagSet: []tagXML{}}
	for _, t := range o.Tags {
		out.TagSet = append(out.TagSet, tagXML{t.Key, t.Value})
	}
	s.setVersionID(w.Header(), rq, o.VersionID)
	return writeXML(w, http.StatusOK, out)
}

// putObjectTagging answers PutObjectTagging.
func (s *Server) putObjectTagging(w http.ResponseWriter, r *http.Request, rq *request) error {
	id, err := versionParam(rq.queryOf(r))
	if err != nil {
		return err
	}
	var tags []metadata.KV
	if e := rq.early; e != nil {
		tags, err = e.tags, e.err
	} else {
		tags, err = s.readTaggingBody(r, rq)
	}
	if err != nil {
		return err
	}
	o, err := s.layer.PutVersionTagging(rq.bucket, rq.key, id, tags, object.Conditions{BucketID: s.bucketID(rq)})
	if err != nil {
		return err
	}
	s.setVersionID(w.Header(), rq, o.VersionID)
	w.WriteHeader(http.StatusOK)
	return nil
}

// readTaggingBody reads and parses a PutObjectTagging body.
func (s *Server) readTaggingBody(r *http.Request, rq *request) ([]metadata.KV, error) {
	body, err := s.readBody(r, rq, maxTaggingBody)
	if err != nil {
		return nil, err
	}
	return parseTaggingBody(body)
}

// deleteObjectTagging answers DeleteObjectTagging.
func (s *Server) deleteObjectTagging(w http.ResponseWriter, r *http.Request, rq *request) error {
	id, err := versionParam(rq.queryOf(r))
	if err != nil {
		return err
	}
	o, err := s.layer.PutVersionTagging(rq.bucket, rq.key, id, nil, object.Conditions{BucketID: s.bucketID(rq)})
	if err != nil {
		return err
	}
	s.setVersionID(w.Header(), rq, o.VersionID)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
