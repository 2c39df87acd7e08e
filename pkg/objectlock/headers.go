package objectlock

import (
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// The headers of an upload (PutObject, CopyObject, CreateMultipartUpload)
// that set the new version's retention and legal hold.
const (
	HeaderMode        = "x-amz-object-lock-mode"
	HeaderRetainUntil = "x-amz-object-lock-retain-until-date"
	HeaderLegalHold   = "x-amz-object-lock-legal-hold"
)

// The legal hold statuses, spelled as S3 spells them in headers and in
// the LegalHold document.
const (
	LegalHoldOn  = "ON"
	LegalHoldOff = "OFF"
)

// ParseHeaders reads the values of the x-amz-object-lock-mode,
// x-amz-object-lock-retain-until-date and x-amz-object-lock-legal-hold
// headers of an upload ("" for a header not sent). It answers as S3 does,
// in S3's order, each refusal InvalidArgument with the header in
// ArgumentName:
//
//   - a mode without a date, or a date without a mode: "... must both be
//     supplied", naming the one missing;
//   - a mode other than GOVERNANCE or COMPLIANCE (ParseMode);
//   - a date that is not an ISO 8601 timestamp as SDKs write it (RFC 3339,
//     with or without fractional seconds);
//   - a date that is not after now;
//   - a legal hold other than ON or OFF.
//
// The zero Retention means the headers set none, so the bucket's default
// applies.
func ParseHeaders(mode, retainUntil, legalHold string, now time.Time) (Retention, bool, error) {
	var r Retention
	switch {
	case mode != "" && retainUntil == "":
		return Retention{}, false, errBothSupplied(HeaderRetainUntil)
	case mode == "" && retainUntil != "":
		return Retention{}, false, errBothSupplied(HeaderMode)
	case mode != "":
		m, err := ParseMode(mode)
		if err != nil {
			return Retention{}, false, err
		}
		until, err := time.Parse(time.RFC3339, retainUntil)
		if err != nil {
			return Retention{}, false, argument(HeaderRetainUntil, retainUntil, "The retain until date must be provided in ISO 8601 format")
		}
		if !until.After(now) {
			return Retention{}, false, ErrUntilInPast(HeaderRetainUntil, retainUntil)
		}
		r = Retention{Mode: m, Until: until.UTC()}
	}
	var hold bool
	switch legalHold {
	case "", LegalHoldOff:
	case LegalHoldOn:
		hold = true
	default:
		return Retention{}, false, argument(HeaderLegalHold, legalHold, "Legal Hold must be either of 'ON' or 'OFF'")
	}
	return r, hold, nil
}

// ErrUntilInPast returns S3's answer to a retain-until date, sent as the
// argument name with value, that is not in the future.
func ErrUntilInPast(name, value string) error {
	return argument(name, value, "The retain until date must be in the future!")
}

func errBothSupplied(missing string) error {
	return s3err.Newf(s3err.InvalidArgument, "x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied").
		With("ArgumentName", missing)
}

func argument(name, value, message string) error {
	return s3err.Newf(s3err.InvalidArgument, "%s", message).With("ArgumentName", name).With("ArgumentValue", value)
}
