package api

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/byterange"
	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/precondition"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/s3name"
)

// putObject answers PutObject.
func (s *Server) putObject(w http.ResponseWriter, r *http.Request, rq *request) error {
	cond, err := writeConditions(r.Header)
	if err != nil {
		return err
	}
	hdrs, tags, err := newObjectHeaders(r.Header)
	if err != nil {
		return err
	}
	lock, err := s.uploadLock(r.Header)
	if err != nil {
		return err
	}
	body, size, expect, err := sizedPayload(r, rq.auth)
	if err != nil {
		return err
	}
	if err := requireIntegrity(r.Header, expect); err != nil {
		return err
	}
	if size > object.MaxPutSize {
		return s3err.New(s3err.EntityTooLarge)
	}
	enc, ck, err := s.writeEncryption(r, rq, r.Header)
	defer ck.wipe()
	if err != nil {
		return err
	}
	owner, acl, err := s.writeAccess(r.Header, rq)
	if err != nil {
		return err
	}
	cond.BucketID = s.bucketID(rq)
	obj, err := s.layer.PutObject(object.PutInput{
		Bucket: rq.bucket, Key: rq.key, Body: body, Size: size, Expect: expect, Headers: hdrs, Tags: tags, Conditions: cond,
		Chown: s.fileOwner(rq), Lock: lock, Encryption: enc, Owner: owner, ACL: acl,
	})
	if err != nil {
		return err
	}
	h := w.Header()
	setEncryptionHeaders(h, obj.SSE, ck)
	setWrittenVersionID(h, obj.VersionID)
	h.Set("ETag", `"`+obj.ETag+`"`)
	// Current SDKs read the stored size from x-amz-object-size; the
	// object's record is the truth, whatever the request's framing was.
	h.Set("X-Amz-Object-Size", itoa(obj.Size))
	s.setExpiration(h, rq, &obj)
	setWrittenChecksum(h, expect, &obj)
	w.WriteHeader(http.StatusOK)
	return nil
}

// setWrittenChecksum answers a write that asked for a checksum with the
// object's value of it and its type, as S3 answers PutObject.
func setWrittenChecksum(h http.Header, expect checksum.Expect, obj *object.Object) {
	if expect.Algorithm == checksum.None {
		return
	}
	for _, c := range obj.Checksums {
		if c.Algorithm == expect.Algorithm.String() {
			h.Set(expect.Algorithm.Header(), c.Value)
			h.Set("X-Amz-Checksum-Type", c.Type)
		}
	}
}

// getObject answers GetObject and HeadObject.
func (s *Server) getObject(w http.ResponseWriter, r *http.Request, rq *request) error {
	// No object has a key over S3's 1,024 bytes (writes refuse one, and
	// scan imports none): S3 answers KeyTooLongError, not NoSuchKey.
	if len(rq.key) > s3name.MaxKeyLen {
		return s3name.ValidKey(rq.key)
	}
	q := rq.queryOf(r)
	id, err := versionParam(q)
	if err != nil {
		return err
	}
	if err := checkReadEncryptionHeaders(r.Header); err != nil {
		return err
	}
	ck, err := parseCustomerKey(r.Header, customerPrefix)
	if err != nil {
		return err
	}
	defer ck.wipe()
	if err := s.secureSSEC(r, ck); err != nil {
		return err
	}
	var rd *object.Reader
	switch {
	case r.Method == http.MethodHead:
		// A HEAD needs the record, checked against the file by a stat;
		// opening the file would buy nothing (StatObject).
		var o object.Object
		if o, err = s.layer.StatVersion(rq.bucket, rq.key, id); err != nil {
			return err
		}
		rd = &object.Reader{Object: o}
	case id != "":
		if rd, err = s.layer.OpenVersion(rq.bucket, rq.key, id); err != nil {
			return err
		}
		defer rd.Close()
	default:
		// The current version goes through the hot-object cache.
		if rd, err = s.layer.ReadObject(rq.bucket, rq.key); err != nil {
			return err
		}
		defer rd.Close()
	}
	o := &rd.Object
	if err := s.checkObjectOwner(rq, o); err != nil {
		return err
	}
	if err := s.layer.CheckCustomerKey(o, ck.bytes()); err != nil {
		return err
	}

	if err := precondition.Check(precondition.FromHeader(r.Header, ""), o.ETag, o.LastModified); err != nil {
		if s3err.As(err).Code == s3err.NotModified {
			h := w.Header()
			h["ETag"] = []string{`"` + o.ETag + `"`}
			h["Last-Modified"] = []string{o.LastModified.UTC().Format(http.TimeFormat)}
			setIf(h, "Cache-Control", o.CacheControl)
			setIf(h, "Expires", o.Expires)
			s.setDefaultCacheControl(h, rq)
		}
		return err
	}

	start, length, status := int64(0), o.Size, http.StatusOK
	part := 0 // the part asked for with partNumber, if any
	h := w.Header()
	if _, ok := q["partNumber"]; ok {
		if r.Header.Get("Range") != "" {
			return s3err.Newf(s3err.InvalidRequest, "Cannot specify both Range header and partNumber query parameter")
		}
		n, err := partNumber(q)
		if err != nil {
			return err
		}
		if start, length, err = object.PartRange(o, n); err != nil {
			return err
		}
		part = n
		switch {
		case o.PartsCount > 0:
			// S3 sends the parts count only to a request naming a part: a
			// plain GET or HEAD of a multipart object does not carry it.
			status = http.StatusPartialContent
			h.Set("Content-Range", byterange.Range{Start: start, Length: length}.ContentRange(o.Size))
			h.Set("X-Amz-Mp-Parts-Count", itoa(int64(o.PartsCount)))
		case length > 0:
			// Part 1 of an object not uploaded in parts is the whole
			// object, answered as S3 answers it: a range of all its
			// bytes (206, Content-Range), without a parts count. An empty
			// object has no byte to name: 200 without Content-Range, the
			// answer AWS's SDKs handle for it.
			status = http.StatusPartialContent
			h.Set("Content-Range", byterange.Range{Start: start, Length: length}.ContentRange(o.Size))
		}
	} else {
		rangeHeader := r.Header.Get("Range")
		if !precondition.RangeApplies(r.Header.Get("If-Range"), o.ETag, o.LastModified) {
			// The client's copy is of another version: the range would
			// splice two versions, so the whole current object is sent.
			rangeHeader = ""
		}
		rng, ok, err := byterange.Parse(rangeHeader, o.Size)
		if err != nil {
			h.Set("Content-Range", "bytes */"+itoa(o.Size))
			return err
		}
		if ok {
			start, length, status = rng.Start, rng.Length, http.StatusPartialContent
			h.Set("Content-Range", rng.ContentRange(o.Size))
		}
	}
	setObjectHeaders(h, o, r, q, servedChecksums(o, part, part == 0 && status != http.StatusOK))
	s.setVersionID(h, rq, o.VersionID)
	setLockHeaders(h, o)
	s.setDefaultCacheControl(h, rq)
	if id == "" {
		// Rules expire current versions: a version read by id gets no
		// x-amz-expiration, even when it is the current one.
		s.setExpiration(h, rq, o)
	}
	setEncryptionHeaders(h, o.SSE, ck)
	if o.SSE.Encrypted() && r.Method != http.MethodHead {
		// An encrypted object's bytes are decrypted, never sent from the
		// file: the first package is checked before the answer starts.
		body, err := s.layer.Plaintext(rd, ck.bytes(), start, length)
		if err != nil {
			return err
		}
		h["Content-Length"] = []string{itoa(length)}
		w.WriteHeader(status)
		// The body's WriteTo reads a block of packages with one pread,
		// decrypts it and writes its plaintext (up to 256 KiB) with one
		// Write.
		_, err = io.Copy(w, body)
		return err
	}
	h["Content-Length"] = []string{itoa(length)}
	w.WriteHeader(status)
	if r.Method == http.MethodHead || length == 0 {
		return nil
	}
	if rd.Body != nil {
		// A hot object from memory (pkg/hotcache): no file at all.
		_, err = w.Write(rd.Body[start : start+length])
		return err
	}
	if rd.File == nil {
		return nil
	}
	if length <= smallBody {
		// A small body is read into a pooled buffer and written with the
		// headers in one write(2): cheaper than flushing the headers and
		// then calling sendfile(2) for a few kilobytes.
		bp := smallBodies.Get().(*[]byte)
		defer smallBodies.Put(bp)
		n, err := rd.File.ReadAt((*bp)[:length], start)
		if int64(n) < length {
			return err
		}
		_, err = w.Write((*bp)[:n])
		return err
	}
	if start > 0 {
		if _, err := rd.File.Seek(start, io.SeekStart); err != nil {
			return err
		}
	}
	// *os.File → ResponseWriter through io.CopyN: sendfile(2).
	_, err = io.CopyN(w, rd.File, length)
	return err
}

// smallBody is the largest body GET reads into memory instead of sending
// with sendfile; see smallBodies.
const smallBody = 16 << 10

// smallBodies are the buffers small GET bodies go through.
var smallBodies = sync.Pool{New: func() any { b := make([]byte, smallBody); return &b }}

// writeConditions parses the conditional-write headers of PutObject,
// CopyObject and CompleteMultipartUpload. S3 accepts only "*" in
// If-None-Match on writes and answers NotImplemented to an entity tag.
func writeConditions(h http.Header) (object.Conditions, error) {
	c := object.Conditions{IfNoneMatch: h.Get("If-None-Match"), IfMatch: h.Get("If-Match")}
	if c.IfNoneMatch != "" && c.IfNoneMatch != "*" {
		return c, s3err.Newf(s3err.NotImplemented, "If-None-Match on writes only supports \"*\".")
	}
	return c, nil
}

// deleteConditions parses the preconditions of a delete: an entity tag
// (If-Match, or ETag in a DeleteObjects entry), a size in bytes
// (x-amz-if-match-size, Size) and an HTTP-date (x-amz-if-match-last-
// modified-time, LastModifiedTime). Empty strings are absent conditions.
func deleteConditions(etag, size, lastModified string) (object.Conditions, error) {
	c := object.Conditions{IfMatch: etag}
	if size != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(size), 10, 64)
		if err != nil || n < 0 {
			return c, s3err.Newf(s3err.InvalidArgument, "The size must be a non-negative integer.").
				With("ArgumentName", "x-amz-if-match-size").With("ArgumentValue", size)
		}
		c.IfMatchSize = &n
	}
	if lastModified != "" {
		t, err := http.ParseTime(strings.TrimSpace(lastModified))
		if err != nil {
			return c, s3err.Newf(s3err.InvalidArgument, "The last modified time must be an HTTP date.").
				With("ArgumentName", "x-amz-if-match-last-modified-time").With("ArgumentValue", lastModified)
		}
		c.IfMatchLastModified = t.UTC()
	}
	return c, nil
}

// deleteObject answers DeleteObject: 204 whether or not the key or the
// version existed. In a versioned bucket it answers with the version
// removed or the delete marker written, and x-amz-delete-marker when that
// version is a marker.
func (s *Server) deleteObject(w http.ResponseWriter, r *http.Request, rq *request) error {
	id, err := versionParam(rq.queryOf(r))
	if err != nil {
		return err
	}
	cond, err := deleteConditions(r.Header.Get("If-Match"), r.Header.Get("X-Amz-If-Match-Size"), r.Header.Get("X-Amz-If-Match-Last-Modified-Time"))
	if err != nil {
		return err
	}
	cond.BucketID = s.bucketID(rq)
	out, err := s.layer.Remove(object.RemoveInput{
		Bucket: rq.bucket, Key: rq.key, VersionID: id, Conditions: cond, BypassGovernance: s.bypassGovernance(r, rq, rq.key),
	})
	if err != nil {
		return err
	}
	h := w.Header()
	if out.VersionID != "" {
		h[headerVersionID] = []string{out.VersionID}
	}
	if out.DeleteMarker {
		h["X-Amz-Delete-Marker"] = []string{"true"}
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type copyObjectResult struct {
	XMLName      struct{} `xml:"CopyObjectResult"`
	ETag         string   `xml:"ETag"`
	LastModified string   `xml:"LastModified"`
	checksumFields
	ChecksumType string `xml:"ChecksumType,omitempty"`
}

// copyObject answers CopyObject.
func (s *Server) copyObject(w http.ResponseWriter, r *http.Request, rq *request) error {
	src, err := parseCopySource(r.Header.Get("X-Amz-Copy-Source"))
	if err != nil {
		return err
	}
	if err := unsupportedWriteHeaders(r.Header); err != nil {
		return err
	}
	enc, ck, srcKey, err := s.copyEncryption(r, rq)
	defer ck.wipe()
	defer srcKey.wipe()
	if err != nil {
		return err
	}
	dstCond, err := writeConditions(r.Header)
	if err != nil {
		return err
	}
	lock, err := s.uploadLock(r.Header)
	if err != nil {
		return err
	}
	owner, acl, err := s.writeAccess(r.Header, rq)
	if err != nil {
		return err
	}
	dstCond.BucketID = s.bucketID(rq)
	in := object.CopyInput{
		SrcBucket: src.bucket, SrcKey: src.key, SrcVersionID: src.versionID, DstBucket: rq.bucket, DstKey: rq.key,
		Chown: s.fileOwner(rq), Conditions: dstCond, Lock: lock,
		Encryption: enc, SrcCustomerKey: srcKey.bytes(), Owner: owner, ACL: acl,
	}
	switch d := r.Header.Get("X-Amz-Metadata-Directive"); d {
	case "", "COPY":
		if in.Headers.WebsiteRedirect, err = websiteRedirect(r.Header); err != nil {
			return err
		}
	case "REPLACE":
		in.Replace = true
		if in.Headers, err = objectHeaders(r.Header); err != nil {
			return err
		}
	default:
		return s3err.Newf(s3err.InvalidArgument, "Unknown metadata directive.").With("ArgumentName", "x-amz-metadata-directive")
	}
	switch d := r.Header.Get("X-Amz-Tagging-Directive"); d {
	case "", "COPY":
	case "REPLACE":
		in.ReplaceTags = true
		if in.Tags, err = parseTaggingHeader(r.Header.Get("X-Amz-Tagging")); err != nil {
			return err
		}
	default:
		return s3err.Newf(s3err.InvalidArgument, "Unknown tagging directive.").With("ArgumentName", "x-amz-tagging-directive")
	}
	if v := r.Header.Get("X-Amz-Checksum-Algorithm"); v != "" {
		alg, ok := checksum.ParseAlgorithm(v)
		if !ok {
			return checksum.Unsupported()
		}
		in.Algorithm = alg
	}
	cond := copySourceConditions(r.Header)
	var copied object.Object
	in.Check = func(o *object.Object) error {
		copied = *o
		if err := s.checkCopyTags(rq, o); err != nil {
			return err
		}
		return precondition.CheckCopySource(cond, o.ETag, o.LastModified)
	}
	// A copy whose bytes pass through the gateway (an object uploaded in
	// parts, an encrypted source or copy, a new checksum) takes time in
	// proportion to its size: one still running after CompleteKeepAlive
	// is answered as a slow CompleteMultipartUpload is.
	c, answered, err := s.runKeptAlive(w, r, rq, longWork{
		op:      "CopyObject",
		work:    func() (object.Object, error) { return s.layer.CopyObject(in) },
		result:  func(o object.Object) any { return copyResult(&o) },
		refusal: src.refusal,
	})
	if answered {
		return err
	}
	if c.err != nil {
		return src.refusal(c.err)
	}
	obj := c.o
	h := w.Header()
	setEncryptionHeaders(h, obj.SSE, ck)
	s.setCopySourceVersionID(h, src, &copied)
	setWrittenVersionID(h, obj.VersionID)
	s.setExpiration(h, rq, &obj)
	return writeXML(w, http.StatusOK, copyResult(&obj))
}

// copyResult is the CopyObjectResult of the copy o.
func copyResult(o *object.Object) copyObjectResult {
	out := copyObjectResult{ETag: `"` + o.ETag + `"`, LastModified: isoTime(o.LastModified)}
	for _, c := range o.Checksums {
		out.set(c.Algorithm, c.Value)
		out.ChecksumType = c.Type
	}
	return out
}

// copySource is the object x-amz-copy-source names.
type copySource struct {
	bucket, key string
	// versionID is the version asked for with ?versionId=, "" for the
	// current one.
	versionID string
}

// parseCopySource splits x-amz-copy-source ("bucket/key" or "/bucket/key",
// URL-encoded, optionally with ?versionId=ID). The layer checks the id.
func parseCopySource(v string) (copySource, error) {
	var src copySource
	if i := strings.Index(v, "?"); i >= 0 {
		q, perr := url.ParseQuery(v[i+1:])
		if perr != nil {
			return src, s3err.Newf(s3err.InvalidArgument, "Invalid version id specified").With("ArgumentName", "versionId")
		}
		id, err := versionParam(q)
		if err != nil {
			return src, err
		}
		src.versionID = id
		v = v[:i]
	}
	dec, derr := url.PathUnescape(v)
	if derr != nil {
		return src, s3err.Newf(s3err.InvalidArgument, "Invalid copy source encoding.")
	}
	dec = strings.TrimPrefix(dec, "/")
	i := strings.Index(dec, "/")
	if i <= 0 || i == len(dec)-1 {
		return src, s3err.Newf(s3err.InvalidArgument, "Copy Source must mention the source bucket and key: sourcebucket/sourcekey.").With("ArgumentName", "x-amz-copy-source")
	}
	src.bucket, src.key = dec[:i], dec[i+1:]
	return src, nil
}

// refusal is S3's answer to a copy whose source could not be read: a
// delete marker named by version id is InvalidRequest, where a GET of it
// is MethodNotAllowed.
func (src copySource) refusal(err error) error {
	if c, ok := s3err.CodeOf(err); ok && c == s3err.MethodNotAllowed && src.versionID != "" {
		return s3err.Newf(s3err.InvalidRequest, "The source of a copy request may not specifically refer to a delete marker by version id.")
	}
	return err
}

// setCopySourceVersionID sets x-amz-copy-source-version-id to the version
// a copy read when the source bucket is versioned: the id of the record
// the copy checked, or "null".
func (s *Server) setCopySourceVersionID(h http.Header, src copySource, copied *object.Object) {
	id := copied.VersionID
	if id == "" {
		st, err := s.layer.BucketState(src.bucket)
		if err != nil || !st.Versioned() {
			return
		}
		id = metadata.NullVersion
	}
	h["X-Amz-Copy-Source-Version-Id"] = []string{id}
}
