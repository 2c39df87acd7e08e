package api

import (
	"encoding/xml"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// The versioning states of a bucket, as S3 spells them in the Status of
// a VersioningConfiguration. A bucket whose versioning was never
// configured has neither: its configuration has no Status.
const (
	versioningEnabled   = "Enabled"
	versioningSuspended = "Suspended"
)

// versioningDoc is a VersioningConfiguration (the body of
// PutBucketVersioning) as the request wrote it, before its values are
// checked. Its tags are those of the xml.Unmarshal reader the fuzz target
// compares parseVersioningConfiguration with.
type versioningDoc struct {
	Status    string `xml:"Status"`
	MfaDelete string `xml:"MfaDelete"`
}

// parseVersioningConfiguration reads a PutBucketVersioning body and
// returns the state it sets, versioningEnabled or versioningSuspended.
// Like the other request documents, its elements are matched by local
// name in any namespace and unknown elements are ignored.
func parseVersioningConfiguration(body []byte) (status string, err error) {
	var doc versioningDoc
	x := newXMLDoc(body, maxConfigTokens)
	if err := x.root("VersioningConfiguration"); err != nil {
		return "", err
	}
	err = x.elements(func(e xml.StartElement) error {
		var err error
		switch e.Name.Local {
		case "Status":
			doc.Status, err = x.text()
		case "MfaDelete":
			doc.MfaDelete, err = x.text()
		default:
			err = x.skip()
		}
		return err
	})
	if err != nil {
		return "", err
	}
	return doc.status()
}

// status checks doc as S3 does. A Status other than Enabled or Suspended,
// an empty or missing one included, is MalformedXML: the document
// carries nothing else a bucket could be set to. MfaDelete Disabled is
// what every bucket has and is accepted; MfaDelete Enabled would need the
// x-amz-mfa device authentication the gateway has no devices for, and is
// NotImplemented rather than a setting silently not enforced.
func (doc versioningDoc) status() (string, error) {
	switch doc.Status {
	case versioningEnabled, versioningSuspended:
	default:
		return "", s3err.New(s3err.MalformedXML)
	}
	switch doc.MfaDelete {
	case "", "Disabled":
	case "Enabled":
		return "", s3err.Newf(s3err.NotImplemented, "MFA Delete is not supported.").With("Header", "x-amz-mfa")
	default:
		return "", s3err.New(s3err.MalformedXML)
	}
	return doc.Status, nil
}

// appendVersioningConfiguration appends the GetBucketVersioning document
// of a bucket in versioning state status. A bucket whose versioning was
// never configured (status "") answers the empty element, as S3 does.
func appendVersioningConfiguration(b []byte, status string) []byte {
	b = append(b, `<VersioningConfiguration xmlns="`+s3NS+`">`...)
	b = appendElemOmit(b, "Status", status)
	return append(b, "</VersioningConfiguration>"...)
}
