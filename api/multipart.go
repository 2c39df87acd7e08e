package api

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/precondition"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// checksumFields are the Checksum* elements of S3's documents, one per
// algorithm of pkg/checksum, named as in S3's model.
type checksumFields struct {
	ChecksumCRC32     string `xml:"ChecksumCRC32,omitempty"`
	ChecksumCRC32C    string `xml:"ChecksumCRC32C,omitempty"`
	ChecksumCRC64NVME string `xml:"ChecksumCRC64NVME,omitempty"`
	ChecksumSHA1      string `xml:"ChecksumSHA1,omitempty"`
	ChecksumSHA256    string `xml:"ChecksumSHA256,omitempty"`
	ChecksumSHA512    string `xml:"ChecksumSHA512,omitempty"`
	ChecksumMD5       string `xml:"ChecksumMD5,omitempty"`
	ChecksumXXHASH64  string `xml:"ChecksumXXHASH64,omitempty"`
	ChecksumXXHASH3   string `xml:"ChecksumXXHASH3,omitempty"`
	ChecksumXXHASH128 string `xml:"ChecksumXXHASH128,omitempty"`
}

// field returns the element that holds alg's checksum, or nil for a name
// that is no algorithm.
func (c *checksumFields) field(alg string) *string {
	a, ok := checksum.ParseAlgorithm(alg)
	if !ok || a.String() != alg {
		return nil
	}
	switch a {
	case checksum.CRC32:
		return &c.ChecksumCRC32
	case checksum.CRC32C:
		return &c.ChecksumCRC32C
	case checksum.CRC64NVME:
		return &c.ChecksumCRC64NVME
	case checksum.SHA1:
		return &c.ChecksumSHA1
	case checksum.SHA256:
		return &c.ChecksumSHA256
	case checksum.SHA512:
		return &c.ChecksumSHA512
	case checksum.MD5:
		return &c.ChecksumMD5
	case checksum.XXHASH64:
		return &c.ChecksumXXHASH64
	case checksum.XXHASH3:
		return &c.ChecksumXXHASH3
	case checksum.XXHASH128:
		return &c.ChecksumXXHASH128
	}
	return nil
}

func (c *checksumFields) set(alg, value string) {
	if f := c.field(alg); f != nil {
		*f = value
	}
}

// has reports whether the fields have a place for alg's checksum.
func (c *checksumFields) has(alg string) bool { return c.field(alg) != nil }

// value returns the one checksum the fields hold for alg.
func (c *checksumFields) value(alg string) string {
	if f := c.field(alg); f != nil {
		return *f
	}
	return ""
}

type initiateMultipartUploadResult struct {
	XMLName  xml.Name `xml:"InitiateMultipartUploadResult"`
	NS       string   `xml:"xmlns,attr"`
	Bucket   string   `xml:"Bucket"`
	Key      string   `xml:"Key"`
	UploadID string   `xml:"UploadId"`
}

// createMultipartUpload answers CreateMultipartUpload.
func (s *Server) createMultipartUpload(w http.ResponseWriter, r *http.Request, rq *request) error {
	enc, ck, err := s.writeEncryption(r, rq, r.Header)
	defer ck.wipe()
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
	objOwner, acl, err := s.writeAccess(r.Header, rq)
	if err != nil {
		return err
	}
	in := object.CreateUploadInput{Bucket: rq.bucket, BucketID: s.bucketID(rq), Key: rq.key, Owner: rq.accessKey, Headers: hdrs, Tags: tags, Type: r.Header.Get("X-Amz-Checksum-Type"), Lock: lock, Encryption: enc,
		ObjectOwner: objOwner, ACL: acl}
	if v := r.Header.Get("X-Amz-Checksum-Algorithm"); v != "" {
		alg, ok := checksum.ParseAlgorithm(v)
		if !ok {
			return checksum.Unsupported()
		}
		in.Algorithm = alg
	}
	u, err := s.layer.CreateMultipartUpload(in)
	if err != nil {
		return err
	}
	if u.ChecksumAlgorithm != "" {
		w.Header().Set("X-Amz-Checksum-Algorithm", u.ChecksumAlgorithm)
		w.Header().Set("X-Amz-Checksum-Type", u.ChecksumType)
	}
	setEncryptionHeaders(w.Header(), u.SSE, ck)
	return writeXML(w, http.StatusOK, initiateMultipartUploadResult{NS: s3NS, Bucket: rq.bucket, Key: rq.key, UploadID: u.ID})
}

// partNumber parses the partNumber query parameter.
func partNumber(q url.Values) (int, error) {
	n, err := strconv.Atoi(q.Get("partNumber"))
	if err != nil || n < 1 || n > object.MaxParts {
		return 0, s3err.Newf(s3err.InvalidArgument, "Part number must be an integer between 1 and 10000, inclusive").With("ArgumentName", "partNumber")
	}
	return n, nil
}

// uploadPart answers UploadPart.
func (s *Server) uploadPart(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	n, err := partNumber(q)
	if err != nil {
		return err
	}
	if err := checkCustomerKeyHeaders(r.Header); err != nil {
		return err
	}
	ck, err := s.partCustomerKey(r, customerPrefix)
	defer ck.wipe()
	if err != nil {
		return err
	}
	body, size, expect, err := sizedPayload(r, rq.auth)
	if err != nil {
		return err
	}
	p, err := s.layer.UploadPart(object.PartInput{
		Bucket: rq.bucket, BucketID: s.bucketID(rq), Key: rq.key, UploadID: q.Get("uploadId"), Number: n, Body: body, Size: size, Expect: expect,
		CustomerKey: ck.bytes(),
	})
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("ETag", `"`+p.ETag+`"`)
	if p.Salt != nil {
		setEncryptionHeaders(h, s.layer.UploadEncryption(rq.bucket, rq.key, q.Get("uploadId")), ck)
	}
	if alg, ok := checksum.ParseAlgorithm(p.Checksum.Algorithm); ok && (expect.Algorithm == alg) {
		h.Set(alg.Header(), p.Checksum.Value)
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

type copyPartResult struct {
	XMLName      xml.Name `xml:"CopyPartResult"`
	ETag         string   `xml:"ETag"`
	LastModified string   `xml:"LastModified"`
	checksumFields
}

// uploadPartCopy answers UploadPartCopy.
func (s *Server) uploadPartCopy(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	n, err := partNumber(q)
	if err != nil {
		return err
	}
	if err := checkCustomerKeyHeaders(r.Header); err != nil {
		return err
	}
	src, err := parseCopySource(r.Header.Get("X-Amz-Copy-Source"))
	if err != nil {
		return err
	}
	ck, err := s.partCustomerKey(r, customerPrefix)
	defer ck.wipe()
	if err != nil {
		return err
	}
	srcKey, err := s.partCustomerKey(r, copyPrefix)
	defer srcKey.wipe()
	if err != nil {
		return err
	}
	in := object.CopyPartInput{
		Bucket: rq.bucket, BucketID: s.bucketID(rq), Key: rq.key, UploadID: q.Get("uploadId"), Number: n,
		SrcBucket: src.bucket, SrcKey: src.key, SrcVersionID: src.versionID,
		SrcCustomerKey: srcKey.bytes(), CustomerKey: ck.bytes(),
	}
	if v := r.Header.Get("X-Amz-Copy-Source-Range"); v != "" {
		in.Range = func(size int64) (int64, int64, error) { return copySourceRange(v, size) }
	}
	cond := copySourceConditions(r.Header)
	var copied object.Object
	in.Check = func(o *object.Object) error {
		copied = *o
		return precondition.CheckCopySource(cond, o.ETag, o.LastModified)
	}
	p, err := s.layer.UploadPartCopy(in)
	if err != nil {
		return src.refusal(err)
	}
	s.setCopySourceVersionID(w.Header(), src, &copied)
	if p.Salt != nil {
		setEncryptionHeaders(w.Header(), s.layer.UploadEncryption(rq.bucket, rq.key, q.Get("uploadId")), ck)
	}
	out := copyPartResult{ETag: `"` + p.ETag + `"`, LastModified: isoTime(p.LastModified)}
	out.set(p.Checksum.Algorithm, p.Checksum.Value)
	return writeXML(w, http.StatusOK, out)
}

// copySourceRange parses x-amz-copy-source-range, which unlike Range must
// be a complete "bytes=first-last" inside the source.
func copySourceRange(v string, size int64) (int64, int64, error) {
	bad := s3err.Newf(s3err.InvalidArgument, "The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy").With("ArgumentName", "x-amz-copy-source-range")
	spec, ok := strings.CutPrefix(v, "bytes=")
	if !ok {
		return 0, 0, bad
	}
	a, b, ok := strings.Cut(spec, "-")
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || first < 0 || last < first {
		return 0, 0, bad
	}
	if last >= size {
		return 0, 0, s3err.Newf(s3err.InvalidRange, "The requested range is not satisfiable")
	}
	return first, last - first + 1, nil
}

func copySourceConditions(h http.Header) precondition.Headers {
	return precondition.FromHeader(h, "X-Amz-Copy-Source-")
}

type completeMultipartUploadResult struct {
	XMLName  xml.Name `xml:"CompleteMultipartUploadResult"`
	NS       string   `xml:"xmlns,attr"`
	Location string   `xml:"Location"`
	Bucket   string   `xml:"Bucket"`
	Key      string   `xml:"Key"`
	ETag     string   `xml:"ETag"`
	checksumFields
	ChecksumType string `xml:"ChecksumType,omitempty"`
}

// maxCompleteBody bounds a CompleteMultipartUpload body: 10,000 parts with
// an ETag and a checksum each.
const maxCompleteBody = 4 << 20

// parseCompleteRequest decodes a CompleteMultipartUpload body: at least
// one Part (else MalformedXML) and at most 10,000, S3's limit, which the
// 10,001st answers with InvalidArgument as soon as it begins.
func parseCompleteRequest(body []byte) ([]object.CompletePart, error) {
	var parts []object.CompletePart
	x := newXMLDoc(body, maxCompleteTokens)
	if err := x.root("CompleteMultipartUpload"); err != nil {
		return nil, err
	}
	err := x.elements(func(e xml.StartElement) error {
		if e.Name.Local != "Part" {
			return x.skip()
		}
		if len(parts) == object.MaxParts {
			return s3err.Newf(s3err.InvalidArgument, "Part number must be an integer between 1 and 10000, inclusive")
		}
		p, err := parseCompletePart(x)
		parts = append(parts, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, s3err.Newf(s3err.MalformedXML, "You must specify at least one part")
	}
	return parts, nil
}

// parseCompletePart reads the Part element just opened. Checksums holds
// the non-empty checksum elements, by algorithm, and is nil without any.
func parseCompletePart(x *xmlDoc) (object.CompletePart, error) {
	var p object.CompletePart
	var sums checksumFields
	err := x.elements(func(e xml.StartElement) error {
		var err error
		switch name := e.Name.Local; name {
		case "PartNumber":
			var v string
			if v, err = x.text(); err == nil {
				p.Number, err = xmlInt(v)
			}
		case "ETag":
			p.ETag, err = x.text()
		default:
			alg, ok := strings.CutPrefix(name, "Checksum")
			if !ok || !sums.has(alg) {
				return x.skip()
			}
			var v string
			if v, err = x.text(); err == nil {
				sums.set(alg, v)
			}
		}
		return err
	})
	for _, alg := range checksum.Algorithms() {
		if v := sums.value(alg.String()); v != "" {
			if p.Checksums == nil {
				p.Checksums = map[string]string{}
			}
			p.Checksums[alg.String()] = v
		}
	}
	return p, err
}

// completeMultipartUpload answers CompleteMultipartUpload.
func (s *Server) completeMultipartUpload(w http.ResponseWriter, r *http.Request, rq *request) error {
	id := r.URL.Query().Get("uploadId")
	cond, err := writeConditions(r.Header)
	if err != nil {
		return err
	}
	cond.BucketID = s.bucketID(rq)
	// The upload is looked up before its parts list is read, so that a
	// wrong or finished upload id costs no reading and no parsing.
	enc, err := s.layer.CheckCompletion(rq.bucket, rq.key, id)
	if err != nil {
		return err
	}
	body, err := s.readBodyOpt(r, rq, maxCompleteBody, false)
	if err != nil {
		return err
	}
	ck, err := s.partCustomerKey(r, customerPrefix)
	defer ck.wipe()
	if err != nil {
		return err
	}
	in := object.CompleteInput{Bucket: rq.bucket, Key: rq.key, UploadID: id, ExpectSize: -1, Conditions: cond, Chown: s.fileOwner(rq),
		CustomerKey: ck.bytes()}
	for _, alg := range checksum.Algorithms() {
		if v := r.Header.Get(alg.Header()); v != "" {
			in.ExpectAlgorithm, in.ExpectValue = alg, v
		}
	}
	if v := r.Header.Get("X-Amz-Checksum-Type"); v != "" {
		if v != object.ChecksumComposite && v != object.ChecksumFullObject {
			return s3err.Newf(s3err.InvalidRequest, "Value for x-amz-checksum-type header is invalid.")
		}
		in.ExpectType = v
	}
	if v := r.Header.Get("X-Amz-Mp-Object-Size"); v != "" {
		n, err := parseMpObjectSize(v)
		if err != nil {
			return err
		}
		in.ExpectSize = n
	}
	if in.Parts, err = parseCompleteRequest(body); err != nil {
		return err
	}
	c, answered, err := s.runKeptAlive(w, r, rq, longWork{
		op:   "CompleteMultipartUpload",
		work: func() (object.Object, error) { return s.layer.CompleteMultipartUpload(in) },
		// An early answer goes out before the completion ends: its
		// encryption headers are the upload's, which the object will have.
		early:  func(h http.Header) { setEncryptionHeaders(h, enc, ck) },
		result: func(o object.Object) any { return completeResult(r, rq, o) },
	})
	if answered {
		return err
	}
	if c.err != nil {
		return c.err
	}
	// S3 names the version made in the header only, not in the document.
	setWrittenVersionID(w.Header(), c.o.VersionID)
	setEncryptionHeaders(w.Header(), c.o.SSE, ck)
	return writeXML(w, http.StatusOK, completeResult(r, rq, c.o))
}

// parseMpObjectSize reads x-amz-mp-object-size, the size in bytes a
// completion states for its object, with S3's answers for a value that
// is no integer and for a negative one (versity/versitygw#1398 and #1400
// record them from S3).
func parseMpObjectSize(v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, s3err.Newf(s3err.InvalidRequest, "Value for x-amz-mp-object-size header is invalid: '%s'", v)
	}
	if n < 0 {
		return 0, s3err.Newf(s3err.InvalidRequest, "Value for x-amz-mp-object-size header is less than zero: '%s'", v)
	}
	return n, nil
}

// completion is the outcome of a CompleteMultipartUpload or a CopyObject
// in the layer.
type completion struct {
	o   object.Object
	err error
}

// inBackground runs f, the layer's work of operation op on bucket/key, on
// its own goroutine and delivers its outcome on the channel it returns: a
// panic becomes an InternalError there, as the server's recovery makes of
// one on the request's goroutine.
func (s *Server) inBackground(op, bucket, key string, f func() (object.Object, error)) <-chan completion {
	done := make(chan completion, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				// The panic's value and stack go to the log; the client
				// gets InternalError's own message.
				s.opts.Logger.Error().Str("op", op).Str("bucket", bucket).Str("key", key).
					Str("panic", fmt.Sprint(p)).Bytes("stack", debug.Stack()).Msg("operation panicked")
				done <- completion{err: s3err.New(s3err.InternalError)}
			}
		}()
		o, err := f()
		done <- completion{o, err}
	}()
	return done
}

// longWork is a CompleteMultipartUpload or a CopyObject in the layer, which
// may take longer than a client waits for response headers.
type longWork struct {
	op   string                        // the operation, for the log
	work func() (object.Object, error) // the layer's work
	// early, if set, adds the headers of an answer that starts before
	// the work ends.
	early func(http.Header)
	// result is the result document of the work's object.
	result func(object.Object) any
	// refusal, if set, maps the work's error to the one answered.
	refusal func(error) error
}

// runKeptAlive runs lw's work on its own goroutine (inBackground). When it
// ends within Options.CompleteKeepAlive, its outcome is returned, with
// answered false, for the caller to answer. Otherwise it is answered as S3
// answers a long CompleteMultipartUpload or CopyObject: 200 and the XML
// declaration at once, then a space every CompleteKeepAlive so that the
// client's read timeout does not fire, then the result document or, if
// the work failed, the Error document in the body of the 200, which the
// SDKs read as the error it is; answered is true and err is what the
// handler returns.
func (s *Server) runKeptAlive(w http.ResponseWriter, r *http.Request, rq *request, lw longWork) (c completion, answered bool, err error) {
	done := s.inBackground(lw.op, rq.bucket, rq.key, lw.work)
	wait := time.NewTimer(s.opts.CompleteKeepAlive)
	defer wait.Stop()
	select {
	case c = <-done:
		return c, false, nil
	case <-wait.C:
		if lw.early != nil {
			lw.early(w.Header())
		}
		return completion{}, true, s.answerSlowly(w, r, rq, done, lw)
	}
}

// answerSlowly is runKeptAlive's answer of work not done in time.
func (s *Server) answerSlowly(w http.ResponseWriter, r *http.Request, rq *request, done <-chan completion, lw longWork) error {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusOK)
	// Once the client is gone there is nobody to write to, but the work
	// is waited for all the same: it holds the request's slot until it
	// ends, and a retry gets its result.
	alive := write(w, rc, []byte(xml.Header))
	tick := time.NewTicker(s.opts.CompleteKeepAlive)
	defer tick.Stop()
	for {
		select {
		case c := <-done:
			var body []byte
			err := c.err
			if err != nil && lw.refusal != nil {
				err = lw.refusal(err)
			}
			if err == nil {
				if body, err = xml.Marshal(lw.result(c.o)); err != nil {
					body = nil
				}
			}
			if err != nil {
				body = s.errorDocument(r, rq, err)
			}
			if alive {
				write(w, rc, body)
			}
			if err != nil {
				// Answered in the body: the access log and the metrics
				// still see the error.
				return &answeredError{err}
			}
			return nil
		case <-tick.C:
			if alive {
				alive = write(w, rc, []byte(" "))
			}
		}
	}
}

// write writes p and flushes it to the client, reporting whether that
// worked.
func write(w http.ResponseWriter, rc *http.ResponseController, p []byte) bool {
	if _, err := w.Write(p); err != nil {
		return false
	}
	return rc.Flush() == nil
}

// completeResult is the CompleteMultipartUploadResult of object o. Its
// Location is absolute, as S3's is.
func completeResult(r *http.Request, rq *request, o object.Object) completeMultipartUploadResult {
	out := completeMultipartUploadResult{
		NS: s3NS, Location: objectURL(r, rq, rq.key),
		Bucket: rq.bucket, Key: rq.key, ETag: `"` + o.ETag + `"`,
	}
	for _, c := range o.Checksums {
		out.set(c.Algorithm, c.Value)
		out.ChecksumType = c.Type
	}
	return out
}

// abortMultipartUpload answers AbortMultipartUpload.
func (s *Server) abortMultipartUpload(w http.ResponseWriter, r *http.Request, rq *request) error {
	if err := s.layer.AbortMultipartUpload(rq.bucket, rq.key, r.URL.Query().Get("uploadId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type partEntry struct {
	PartNumber   int    `xml:"PartNumber"`
	LastModified string `xml:"LastModified"`
	ETag         string `xml:"ETag"`
	Size         int64  `xml:"Size"`
	checksumFields
}

type listPartsResult struct {
	XMLName              xml.Name    `xml:"ListPartsResult"`
	NS                   string      `xml:"xmlns,attr"`
	Bucket               string      `xml:"Bucket"`
	Key                  string      `xml:"Key"`
	UploadID             string      `xml:"UploadId"`
	Initiator            owner       `xml:"Initiator"`
	Owner                owner       `xml:"Owner"`
	StorageClass         string      `xml:"StorageClass"`
	PartNumberMarker     int         `xml:"PartNumberMarker"`
	NextPartNumberMarker int         `xml:"NextPartNumberMarker"`
	MaxParts             int         `xml:"MaxParts"`
	IsTruncated          bool        `xml:"IsTruncated"`
	Parts                []partEntry `xml:"Part"`
	ChecksumAlgorithm    string      `xml:"ChecksumAlgorithm,omitempty"`
	ChecksumType         string      `xml:"ChecksumType,omitempty"`
}

// intParam parses an optional non-negative integer query parameter.
func intParam(q url.Values, name string, def, max int) (int, error) {
	v, ok := q[name]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v[0])
	if err != nil || n < 0 {
		return 0, s3err.Newf(s3err.InvalidArgument, "Provided %s not an integer or within integer range", name).With("ArgumentName", name).With("ArgumentValue", v[0])
	}
	return min(n, max), nil
}

// listParts answers ListParts.
func (s *Server) listParts(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	maxParts, err := intParam(q, "max-parts", 1000, 1000)
	if err != nil {
		return err
	}
	marker, err := intParam(q, "part-number-marker", 0, object.MaxParts)
	if err != nil {
		return err
	}
	id := q.Get("uploadId")
	u, parts, more, err := s.layer.ListParts(rq.bucket, rq.key, id, marker, max(maxParts, 1))
	if err != nil {
		return err
	}
	if maxParts == 0 {
		// An empty page that says it is complete, as S3 answers
		// ListObjects with max-keys=0 and as ListMultipartUploads
		// answers max-uploads=0: a truncated one would name the same
		// marker again, and a paginator asking 0 at a time would loop
		// for ever.
		parts, more = nil, false
	}
	out := listPartsResult{
		NS: s3NS, Bucket: rq.bucket, Key: rq.key, UploadID: id,
		Initiator: ownerOf(u.Owner), Owner: ownerOf(u.Owner), StorageClass: "STANDARD",
		PartNumberMarker: marker, MaxParts: maxParts, IsTruncated: more,
		ChecksumAlgorithm: u.ChecksumAlgorithm, ChecksumType: u.ChecksumType,
	}
	for _, p := range parts {
		e := partEntry{PartNumber: p.Number, LastModified: isoTime(p.LastModified), ETag: `"` + p.ETag + `"`, Size: p.Size}
		if u.ChecksumAlgorithm != "" {
			e.set(p.Checksum.Algorithm, p.Checksum.Value)
		}
		out.Parts = append(out.Parts, e)
		out.NextPartNumberMarker = p.Number
	}
	return writeXML(w, http.StatusOK, out)
}

type uploadEntry struct {
	Key               string `xml:"Key"`
	UploadID          string `xml:"UploadId"`
	Initiator         owner  `xml:"Initiator"`
	Owner             owner  `xml:"Owner"`
	StorageClass      string `xml:"StorageClass"`
	Initiated         string `xml:"Initiated"`
	ChecksumAlgorithm string `xml:"ChecksumAlgorithm,omitempty"`
	ChecksumType      string `xml:"ChecksumType,omitempty"`
}

type listMultipartUploadsResult struct {
	XMLName            xml.Name       `xml:"ListMultipartUploadsResult"`
	NS                 string         `xml:"xmlns,attr"`
	Bucket             string         `xml:"Bucket"`
	KeyMarker          string         `xml:"KeyMarker"`
	UploadIDMarker     string         `xml:"UploadIdMarker"`
	NextKeyMarker      string         `xml:"NextKeyMarker"`
	NextUploadIDMarker string         `xml:"NextUploadIdMarker"`
	Prefix             string         `xml:"Prefix"`
	Delimiter          string         `xml:"Delimiter,omitempty"`
	MaxUploads         int            `xml:"MaxUploads"`
	IsTruncated        bool           `xml:"IsTruncated"`
	Uploads            []uploadEntry  `xml:"Upload"`
	CommonPrefixes     []commonPrefix `xml:"CommonPrefixes"`
	EncodingType       string         `xml:"EncodingType,omitempty"`
}

// listMultipartUploads answers ListMultipartUploads.
func (s *Server) listMultipartUploads(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	p, err := parseListParams(q)
	if err != nil {
		return err
	}
	maxUploads, err := intParam(q, "max-uploads", 1000, 1000)
	if err != nil {
		return err
	}
	uq := metadata.UploadQuery{Prefix: p.prefix, Delimiter: p.delimiter, KeyMarker: q.Get("key-marker"), Limit: maxUploads}
	if uq.KeyMarker != "" {
		uq.UploadIDMarker = q.Get("upload-id-marker")
	}
	page, err := s.layer.ListUploads(rq.bucket, uq)
	if err != nil {
		return err
	}
	out := listMultipartUploadsResult{
		NS: s3NS, Bucket: rq.bucket, KeyMarker: p.encode(uq.KeyMarker), UploadIDMarker: uq.UploadIDMarker,
		Prefix: p.encode(p.prefix), Delimiter: p.encode(p.delimiter), MaxUploads: maxUploads, IsTruncated: page.Truncated,
	}
	if page.Truncated {
		out.NextKeyMarker, out.NextUploadIDMarker = p.encode(page.NextKeyMarker), page.NextUploadIDMarker
	}
	if p.encodeURL {
		out.EncodingType = "url"
	}
	for _, u := range page.Uploads {
		out.Uploads = append(out.Uploads, uploadEntry{
			Key: p.encode(u.Key), UploadID: u.ID, Initiator: ownerOf(u.Owner), Owner: ownerOf(u.Owner),
			StorageClass: "STANDARD", Initiated: isoTime(u.Initiated),
			ChecksumAlgorithm: u.ChecksumAlgorithm, ChecksumType: u.ChecksumType,
		})
	}
	for _, cp := range page.CommonPrefixes {
		out.CommonPrefixes = append(out.CommonPrefixes, commonPrefix{Prefix: p.encode(cp)})
	}
	return writeXML(w, http.StatusOK, out)
}
