package objectlock

import (
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// lockedMessage is S3's message for a request refused because the version
// it would change or remove is protected by its retention or legal hold.
const lockedMessage = "Access Denied because object protected by object lock."

// errLocked returns the AccessDenied S3 answers for a protected version.
func errLocked() error {
	return s3err.Newf(s3err.AccessDenied, lockedMessage)
}

// Precision is the precision of the retain-until dates S3 shows, in
// GetObjectRetention and the x-amz-object-lock-retain-until-date header.
const Precision = time.Millisecond

// CheckChange decides whether PutObjectRetention may replace a version's
// retention old with new (the zero Retention removes it), as S3 does:
//
//   - an old retention that has expired, or none, allows any change;
//   - COMPLIANCE allows only an extension in the same mode (an Until no
//     earlier than the old one), whoever asks and whatever the bypass;
//   - GOVERNANCE allows an extension in the same mode to anyone, and a
//     shorter date, a removal or a change to COMPLIANCE only with
//     bypassGovernance, the x-amz-bypass-governance-retention header of a
//     caller allowed s3:BypassGovernanceRetention.
//
// A refused change is AccessDenied with S3's message. CheckChange does
// not check that new.Until is in the future: the parsers of the request
// refuse a past date first, as S3 does.
//
// The dates are compared at Precision, the precision S3 shows them in: a
// version's date may hold a fraction of a millisecond (a default
// retention counts from the version's creation time, and a header may
// name nanoseconds), and a client that sends back the date
// GetObjectRetention showed it keeps the retention, not shortens it.
func CheckChange(old, new Retention, bypassGovernance bool, now time.Time) error {
	if !old.active(now) {
		return nil
	}
	extends := new.Mode == old.Mode && !new.Until.Before(old.Until.Truncate(Precision))
	switch {
	case extends:
		return nil
	case old.Mode == Governance && bypassGovernance:
		return nil
	}
	return errLocked()
}

// Protected reports whether a version with retention r and legal hold
// legalHold is protected from removal and change at now by anyone without
// the right to bypass governance mode.
func Protected(r Retention, legalHold bool, now time.Time) bool {
	return legalHold || r.active(now)
}

// CheckRemove decides whether a version with retention r and legal hold
// legalHold may be deleted (a DeleteObject or DeleteObjects naming its
// version, or anything else that destroys its bytes): a legal hold always
// refuses, an unexpired COMPLIANCE retention always refuses, and an
// unexpired GOVERNANCE retention refuses unless bypassGovernance. A
// refusal is AccessDenied with S3's message.
func CheckRemove(r Retention, legalHold bool, bypassGovernance bool, now time.Time) error {
	switch {
	case legalHold:
		return errLocked()
	case !r.active(now):
		return nil
	case r.Mode == Governance && bypassGovernance:
		return nil
	}
	return errLocked()
}
