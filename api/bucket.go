package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

const s3NS = "http://s3.amazonaws.com/doc/2006-03-01/"

// owner is the <Owner> element. The ID is a stable digest of the access
// key, shaped like S3's 64-hex canonical user id.
type owner struct {
	ID          string `xml:"ID"`
	DisplayName string `xml:"DisplayName"`
}

func ownerOf(accessKey string) owner {
	sum := sha256.Sum256([]byte(accessKey))
	return owner{ID: hex.EncodeToString(sum[:]), DisplayName: accessKey}
}

type listAllMyBucketsResult struct {
	XMLName           xml.Name     `xml:"ListAllMyBucketsResult"`
	NS                string       `xml:"xmlns,attr"`
	Owner             owner        `xml:"Owner"`
	Buckets           []bucketInfo `xml:"Buckets>Bucket"`
	ContinuationToken string       `xml:"ContinuationToken,omitempty"`
	Prefix            string       `xml:"Prefix,omitempty"`
}

type bucketInfo struct {
	Name         string `xml:"Name"`
	CreationDate string `xml:"CreationDate"`
	BucketRegion string `xml:"BucketRegion,omitempty"`
	BucketArn    string `xml:"BucketArn,omitempty"`
}

// bucketARN is the ARN S3 gives a general purpose bucket. It names no
// partition other than aws, region or account, as S3's does not.
func bucketARN(name string) string { return "arn:aws:s3:::" + name }

// listBuckets answers ListBuckets, with the optional prefix, max-buckets
// and continuation-token paging of the current API.
func (s *Server) listBuckets(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	limit := 10000
	if v := q.Get("max-buckets"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10000 {
			return s3err.Newf(s3err.InvalidArgument, "Argument max-buckets must be an integer between 1 and 10000.").With("ArgumentName", "max-buckets")
		}
		limit = n
	}
	after := ""
	if tok := q.Get("continuation-token"); tok != "" {
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			return s3err.Newf(s3err.InvalidArgument, "The continuation token provided is incorrect").With("ArgumentName", "continuation-token")
		}
		after = string(raw)
	}
	prefix := q.Get("prefix")
	all, err := s.layer.Buckets()
	if err != nil {
		return err
	}
	out := listAllMyBucketsResult{NS: s3NS, Owner: ownerOf(rq.accessKey), Buckets: []bucketInfo{}, Prefix: prefix}
	for _, b := range all {
		if b.Name <= after || !strings.HasPrefix(b.Name, prefix) || !s.owns(rq, b) {
			continue
		}
		if len(out.Buckets) == limit {
			out.ContinuationToken = base64.RawURLEncoding.EncodeToString([]byte(out.Buckets[limit-1].Name))
			break
		}
		out.Buckets = append(out.Buckets, bucketInfo{Name: b.Name, CreationDate: isoTime(b.Created), BucketRegion: s.region(b), BucketArn: bucketARN(b.Name)})
	}
	return writeXML(w, http.StatusOK, out)
}

func (s *Server) region(b object.Bucket) string {
	if b.Region != "" {
		return b.Region
	}
	return s.opts.Region
}

// maxSmallBody bounds the XML bodies of bucket and multi-object requests.
const maxSmallBody = 2 << 20

// parseLocationConstraint reads the LocationConstraint of a
// CreateBucketConfiguration body ("" if it has none).
func parseLocationConstraint(body []byte) (constraint string, err error) {
	x := newXMLDoc(body, maxCreateBucketTokens)
	if err := x.root("CreateBucketConfiguration"); err != nil {
		return "", err
	}
	err = x.elements(func(e xml.StartElement) error {
		if e.Name.Local != "LocationConstraint" {
			return x.skip()
		}
		var err error
		constraint, err = x.text()
		return err
	})
	return constraint, err
}

func (s *Server) createBucket(w http.ResponseWriter, r *http.Request, rq *request) error {
	lock, err := parseObjectLockEnabled(r.Header.Values("X-Amz-Bucket-Object-Lock-Enabled"))
	if err != nil {
		return err
	}
	acl, ownership, pab, err := s.newBucketAccess(r.Header, rq)
	if err != nil {
		return err
	}
	body, err := s.readBody(r, rq, maxCreateBucketBody)
	if err != nil {
		return err
	}
	region := s.opts.Region
	if len(bytes.TrimSpace(body)) > 0 {
		c, err := parseLocationConstraint(body)
		if err != nil {
			return err
		}
		if c != "" && c != s.opts.Region {
			return s3err.Newf(s3err.IllegalLocationConstraintException, "The %s location constraint is incompatible for the region specific endpoint this request was sent to.", c)
		}
	}
	nb := object.Bucket{Name: rq.bucket, Owner: rq.accessKey, Region: region, ACL: acl, Ownership: ownership, PublicAccessBlock: pab}
	if lock {
		// A bucket made with Object Lock is versioned from the start, and
		// stays so: S3 refuses to suspend it.
		nb.Versioning, nb.ObjectLock = metadata.VersioningEnabled, true
	}
	err = s.layer.CreateBucket(nb)
	if err != nil {
		return err
	}
	if o := s.fileOwner(rq); o != nil {
		if err := s.layer.ChownBucket(rq.bucket, *o); err != nil {
			return err
		}
	}
	w.Header().Set("Location", "/"+rq.bucket)
	w.Header().Set("X-Amz-Bucket-Arn", bucketARN(rq.bucket))
	w.WriteHeader(http.StatusOK)
	return nil
}

// parseObjectLockEnabled reads x-amz-bucket-object-lock-enabled: whether
// CreateBucket makes a bucket with Object Lock. The header is a boolean
// whose spelling varies by client (boto3 sends "True"), so both values
// are read without regard to case; any other value is not a boolean at
// all.
func parseObjectLockEnabled(vals []string) (lock bool, err error) {
	for _, v := range vals {
		switch v = strings.TrimSpace(v); {
		case strings.EqualFold(v, "false"):
		case strings.EqualFold(v, "true"):
			lock = true
		default:
			return false, s3err.Newf(s3err.InvalidArgument, "x-amz-bucket-object-lock-enabled must be true or false.").
				With("ArgumentName", "x-amz-bucket-object-lock-enabled").With("ArgumentValue", v)
		}
	}
	return lock, nil
}

func (s *Server) headBucket(w http.ResponseWriter, r *http.Request, rq *request) error {
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		return err
	}
	w.Header().Set("X-Amz-Bucket-Region", s.region(b))
	w.Header().Set("X-Amz-Bucket-Arn", bucketARN(b.Name))
	w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Server) deleteBucket(w http.ResponseWriter, r *http.Request, rq *request) error {
	if err := s.layer.DeleteBucket(rq.bucket); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type locationConstraint struct {
	XMLName xml.Name `xml:"LocationConstraint"`
	NS      string   `xml:"xmlns,attr"`
	Region  string   `xml:",chardata"`
}

// getBucketLocation answers as S3 does: an empty constraint for us-east-1.
func (s *Server) getBucketLocation(w http.ResponseWriter, r *http.Request, rq *request) error {
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		return err
	}
	region := s.region(b)
	if region == "us-east-1" {
		region = ""
	}
	return writeXML(w, http.StatusOK, locationConstraint{NS: s3NS, Region: region})
}

// readBody reads a whole small request body, decoded and verified like a
// PUT body, refusing more than limit bytes.
func (s *Server) readBody(r *http.Request, rq *request, limit int64) ([]byte, error) {
	return s.readBodyOpt(r, rq, limit, true)
}

// readBodyOpt is readBody; with headerChecksums false, x-amz-checksum-*
// headers are left alone because they describe something else than the
// body (CompleteMultipartUpload's object checksum, whose composite "-N"
// form no body digest has): the body is read as if they were not sent,
// and the caller checks them. The body's share
// of the document budget is taken first and given back when the request
// ends (see Server.ServeHTTP).
func (s *Server) readBodyOpt(r *http.Request, rq *request, limit int64, headerChecksums bool) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, s3err.New(s3err.MaxMessageLengthExceeded)
	}
	pr := r
	if !headerChecksums {
		pr = new(http.Request)
		*pr = *r
		pr.Header = r.Header.Clone()
		for _, alg := range checksum.Algorithms() {
			pr.Header.Del(alg.Header())
		}
		if pr.Header.Get("X-Amz-Trailer") == "" {
			// It names the algorithm of those values; with a
			// trailer, the body's.
			pr.Header.Del("X-Amz-Sdk-Checksum-Algorithm")
		}
	}
	body, size, expect, err := payload(pr, rq.auth)
	if err != nil {
		return nil, err
	}
	cr, err := checksum.NewReader(body, expect)
	if err != nil {
		return nil, err
	}
	share := documentShare(limit, size)
	if err := s.documents.take(r.Context(), share); err != nil {
		return nil, err
	}
	rq.document += share
	first := share
	if size < 0 || size > limit {
		first = min(share, 64<<10)
	}
	data, err := readDocument(cr, first, share)
	if err != nil {
		var e *s3err.Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, s3err.Wrap(s3err.IncompleteBody, err)
	}
	if int64(len(data)) >= share {
		return nil, s3err.New(s3err.MaxMessageLengthExceeded)
	}
	return data, nil
}

// readDocument reads r to its end into one buffer of at most share bytes,
// stopping there: share is one more than the body may have, so a body that
// fills it is over its limit. The buffer starts at first bytes, which is
// share itself for a body of stated length (read with a single
// allocation), and grows by doubling up to share.
func readDocument(r io.Reader, first, share int64) ([]byte, error) {
	buf := make([]byte, 0, first)
	for int64(len(buf)) < share {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(2*int64(cap(buf)), share))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// isoTime formats a time as S3's XML timestamps: UTC with milliseconds.
func isoTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
