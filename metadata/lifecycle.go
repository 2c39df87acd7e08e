package metadata

import (
	"time"
)

// LifecycleCursor is where the lifecycle worker's pass stands, kept in
// the index after every round so that a restarted gateway resumes the
// pass instead of walking again from the first bucket.
type LifecycleCursor struct {
	// Started is when the pass began; zero when no pass is in progress.
	Started time.Time
	// Bucket is the bucket being walked, "" before the first one.
	Bucket string
	// Phase is the worker's step within the bucket (its own numbering).
	Phase int
	// Rule is the ID of the rule whose prefix is being walked.
	Rule string
	// KeyMarker and VersionMarker continue the walk after that entry.
	KeyMarker, VersionMarker string
	// Newer and Since carry the state of a key whose versions a round
	// boundary split: how many noncurrent versions of KeyMarker were
	// seen, and when the next one became noncurrent.
	Newer int
	Since time.Time
	// Marker is the id of KeyMarker's latest version when it is a delete
	// marker, and Kept the number of its other versions the pass kept:
	// the marker is expired when the key ends with Kept zero.
	Marker string
	Kept   int
	// Examined and Acted count the pass's work so far, for its report.
	Examined, Acted uint64
}

// Lifecycle cursor field tags.
const (
	tagLcStarted       = 1
	tagLcBucket        = 2
	tagLcPhase         = 3
	tagLcRule          = 4
	tagLcKeyMarker     = 5
	tagLcVersionMarker = 6
	tagLcNewer         = 7
	tagLcSince         = 8
	tagLcExamined      = 9
	tagLcActed         = 10
	tagLcMarker        = 11
	tagLcKept          = 12
)

// lifecycleKey is the cursor's key in the meta bucket.
var lifecycleKey = []byte("lifecycle-cursor")

// MarshalBinary encodes the cursor. It fails for a time outside years
// 1–9999.
func (c *LifecycleCursor) MarshalBinary() ([]byte, error) {
	if err := checkTime(c.Started); err != nil {
		return nil, err
	}
	if err := checkTime(c.Since); err != nil {
		return nil, err
	}
	e := encoder{b: []byte{recordVersion}}
	e.time(tagLcStarted, c.Started)
	e.str(tagLcBucket, c.Bucket)
	e.uint(tagLcPhase, uint64(c.Phase))
	e.str(tagLcRule, c.Rule)
	e.str(tagLcKeyMarker, c.KeyMarker)
	e.str(tagLcVersionMarker, c.VersionMarker)
	e.uint(tagLcNewer, uint64(c.Newer))
	e.time(tagLcSince, c.Since)
	e.uint(tagLcExamined, c.Examined)
	e.uint(tagLcActed, c.Acted)
	e.str(tagLcMarker, c.Marker)
	e.uint(tagLcKept, uint64(c.Kept))
	return e.b, nil
}

// UnmarshalBinary replaces *c with the cursor encoded in data, skipping
// unknown fields; it leaves *c unchanged if data is not a valid record.
func (c *LifecycleCursor) UnmarshalBinary(data []byte) error {
	var r LifecycleCursor
	err := decode(data, func(tag uint64, p []byte) error {
		var err error
		switch tag {
		case tagLcStarted:
			r.Started, err = parseTime(p)
		case tagLcBucket:
			r.Bucket = string(p)
		case tagLcPhase:
			r.Phase, err = parseSmall(p)
		case tagLcRule:
			r.Rule = string(p)
		case tagLcKeyMarker:
			r.KeyMarker = string(p)
		case tagLcVersionMarker:
			r.VersionMarker = string(p)
		case tagLcNewer:
			r.Newer, err = parseSmall(p)
		case tagLcSince:
			r.Since, err = parseTime(p)
		case tagLcExamined:
			r.Examined, err = parseUint(p)
		case tagLcActed:
			r.Acted, err = parseUint(p)
		case tagLcMarker:
			r.Marker = string(p)
		case tagLcKept:
			r.Kept, err = parseSmall(p)
		}
		return err
	})
	if err != nil {
		return err
	}
	*c = r
	return nil
}

// LifecycleCursor returns the stored cursor, the zero cursor (no pass in
// progress) when none was stored.
func (ix *Index) LifecycleCursor() (LifecycleCursor, error) {
	var c LifecycleCursor
	err := ix.view(func(tx kvTx) error {
		v := tx.Bucket(metaBucket).Get(lifecycleKey)
		if v == nil {
			return nil
		}
		return c.UnmarshalBinary(v)
	})
	return c, err
}

// SetLifecycleCursor stores c; the zero cursor removes the record.
func (ix *Index) SetLifecycleCursor(c LifecycleCursor) error {
	if c == (LifecycleCursor{}) {
		return ix.update(func(tx kvTx) error {
			return written(tx.Bucket(metaBucket).Delete(lifecycleKey))
		})
	}
	v, err := c.MarshalBinary()
	if err != nil {
		return err
	}
	return ix.update(func(tx kvTx) error {
		return written(tx.Bucket(metaBucket).Put(lifecycleKey, v))
	})
}
