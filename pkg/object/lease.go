package object

import (
	"time"

	"github.com/objectgateway/objectgateway/metadata"
)

// AcquireLease takes or renews the index's lease name for holder until
// now+ttl (metadata.Index.AcquireLease): background work that must run on
// one gateway at a time among those sharing the index asks for it before
// each step.
func (l *Layer) AcquireLease(name, holder string, now time.Time, ttl time.Duration) (bool, metadata.Lease, error) {
	return l.ix.AcquireLease(name, holder, now, ttl)
}

// ReleaseLease gives up the lease name if holder has it.
func (l *Layer) ReleaseLease(name, holder string) error {
	return l.ix.ReleaseLease(name, holder)
}
