package metadata

import (
	"encoding/binary"
	"errors"
	"time"
)

// Leases give background work (lifecycle and multipart expiry, sweeps)
// to one gateway at a time among those sharing an index. A lease is a
// name, the holder's identity and an expiry; a gateway that holds it
// renews it while it works, and when it dies the lease runs out and the
// next gateway to ask takes it over. Expiry is judged by the asking
// gateway's clock: the clocks of gateways sharing an index must agree to
// well within a lease's TTL (NTP does).

// leasesBucket is the top-level bucket of leases, keyed by name; a value
// is the expiry (8 bytes, big-endian Unix nanoseconds) then the holder.
var leasesBucket = []byte("leases")

// ErrLeaseName is returned for an empty lease name or holder.
var ErrLeaseName = errors.New("metadata: a lease needs a name and a holder")

// Lease is the state of a named lease.
type Lease struct {
	Holder  string
	Expires time.Time
}

// AcquireLease takes or renews the lease name for holder until now+ttl,
// when it is free, expired (its expiry not after now) or already
// holder's. held reports whether holder has it; cur is the lease as it
// stands after the call. The write is durable when held is true.
func (ix *Index) AcquireLease(name, holder string, now time.Time, ttl time.Duration) (held bool, cur Lease, err error) {
	if name == "" || holder == "" {
		return false, Lease{}, ErrLeaseName
	}
	err = ix.update(func(tx kvTx) error {
		held = false
		b, err := tx.CreateBucketIfNotExists(leasesBucket)
		if err != nil {
			return written(err)
		}
		if v := b.Get([]byte(name)); v != nil {
			if l, ok := decodeLease(v); ok && l.Holder != holder && l.Expires.After(now) {
				cur = l
				return nil
			}
		}
		cur = Lease{Holder: holder, Expires: now.Add(ttl)}
		held = true
		return written(b.Put([]byte(name), encodeLease(cur)))
	})
	if err != nil {
		return false, Lease{}, err
	}
	return held, cur, nil
}

// ReleaseLease gives up the lease name if holder has it, so that another
// gateway may take it at once; a lease held by another is left as it is.
func (ix *Index) ReleaseLease(name, holder string) error {
	if name == "" || holder == "" {
		return ErrLeaseName
	}
	return ix.update(func(tx kvTx) error {
		b := tx.Bucket(leasesBucket)
		if b == nil {
			return nil
		}
		v := b.Get([]byte(name))
		if v == nil {
			return nil
		}
		if l, ok := decodeLease(v); ok && l.Holder != holder {
			return nil
		}
		return written(b.Delete([]byte(name)))
	})
}

// LeaseOf returns the lease name as it stands; ok is false when no one
// has ever held it or it was released.
func (ix *Index) LeaseOf(name string) (l Lease, ok bool, err error) {
	err = ix.view(func(tx kvTx) error {
		b := tx.Bucket(leasesBucket)
		if b == nil {
			return nil
		}
		if v := b.Get([]byte(name)); v != nil {
			l, ok = decodeLease(v)
		}
		return nil
	})
	return l, ok, err
}

// dropLeases removes every lease.
func dropLeases(tx kvTx) error {
	b := tx.Bucket(leasesBucket)
	if b == nil {
		return nil
	}
	var names [][]byte
	if err := b.ForEach(func(k, _ []byte) error {
		names = append(names, append([]byte(nil), k...))
		return nil
	}); err != nil {
		return err
	}
	for _, k := range names {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

func encodeLease(l Lease) []byte {
	v := make([]byte, 8, 8+len(l.Holder))
	binary.BigEndian.PutUint64(v, uint64(l.Expires.UnixNano()))
	return append(v, l.Holder...)
}

// decodeLease reads a lease; a value too short to be one (written by
// something else) reads as free.
func decodeLease(v []byte) (Lease, bool) {
	if len(v) < 9 {
		return Lease{}, false
	}
	return Lease{Holder: string(v[8:]), Expires: time.Unix(0, int64(binary.BigEndian.Uint64(v)))}, true
}
