package metadata

import (
	"errors"
	"fmt"
	"math"
	"time"
)

var (
	// ErrNoSuchUser is returned when an operation names an access key id
	// that has no user record.
	ErrNoSuchUser = errors.New("metadata: no such user")

	// ErrUserExists is returned by CreateUser when a user with that
	// access key id exists.
	ErrUserExists = errors.New("metadata: user exists")
)

// usersBucket is the top-level bbolt bucket of user records, keyed by
// access key id.
var usersBucket = []byte("users")

// User is the record of one access key.
type User struct {
	// AccessKey is the access key id; it is the record's bbolt key and is
	// not part of its encoding.
	AccessKey string
	// Name is a label for people; it carries no meaning to the gateway.
	Name string
	// SealedSecret is the secret access key as the object layer sealed it
	// (encrypted); the index stores it as opaque bytes and never sees the
	// secret itself.
	SealedSecret []byte
	Created      time.Time
	// POSIX, when set, is the file owner the user's writes get (when the
	// gateway runs with the privilege to chown).
	POSIX *POSIXOwner
	// Disabled users fail authentication but keep their record (and so
	// their buckets' ownership).
	Disabled bool
	// Policy is the user's identity policy document as it was put (the
	// object layer validates it), empty for none.
	Policy string
	// Email is the user's email address, "" for none: ACL grants to an
	// EmailAddress grantee name the user by it.
	Email string
}

// POSIXOwner is a numeric file owner.
type POSIXOwner struct {
	UID, GID int
}

// User field tags. They are a namespace of their own (user records are
// never decoded as buckets or objects); never reuse one.
const (
	tagUserName    = 1
	tagUserSecret  = 2
	tagUserCreated = 3
	// tagUserUID and tagUserGID are present together, when POSIX is set.
	tagUserUID      = 4
	tagUserGID      = 5
	tagUserDisabled = 6
	tagUserPolicy   = 7
	// tagUserEmail is the user's email address. It is 20, leaving 8 to
	// 19 to fields added meanwhile on other lines of work.
	tagUserEmail = 20
)

// MarshalBinary encodes the record. AccessKey is not part of the
// encoding. It fails for a Created outside years 1–9999 and for negative
// or 32-bit-overflowing ids.
func (u *User) MarshalBinary() ([]byte, error) {
	if err := checkTime(u.Created); err != nil {
		return nil, err
	}
	e := encoder{b: make([]byte, 0, 96)}
	e.b = append(e.b, recordVersion)
	e.str(tagUserName, u.Name)
	e.str(tagUserSecret, string(u.SealedSecret))
	e.time(tagUserCreated, u.Created)
	if p := u.POSIX; p != nil {
		if p.UID < 0 || p.GID < 0 || p.UID > math.MaxUint32 || p.GID > math.MaxUint32 {
			return nil, fmt.Errorf("metadata: invalid uid/gid %d/%d", p.UID, p.GID)
		}
		// uid 0 is a valid owner, and zero values are omitted by the
		// encoder, so the ids are stored plus one.
		e.uint(tagUserUID, uint64(p.UID)+1)
		e.uint(tagUserGID, uint64(p.GID)+1)
	}
	if u.Disabled {
		e.uint(tagUserDisabled, 1)
	}
	e.str(tagUserPolicy, u.Policy)
	e.str(tagUserEmail, u.Email)
	return e.b, nil
}

// UnmarshalBinary replaces *u with the record encoded in data, leaving
// AccessKey empty. Unknown fields are skipped; *u is unchanged on error.
func (u *User) UnmarshalBinary(data []byte) error {
	var r User
	var uid, gid uint64
	err := decode(data, func(tag uint64, p []byte) error {
		var err error
		switch tag {
		case tagUserName:
			r.Name = string(p)
		case tagUserSecret:
			r.SealedSecret = append([]byte(nil), p...)
		case tagUserCreated:
			r.Created, err = parseTime(p)
		case tagUserUID:
			uid, err = parseUint(p)
		case tagUserGID:
			gid, err = parseUint(p)
		case tagUserEmail:
			r.Email = string(p)
		case tagUserDisabled:
			var v uint64
			v, err = parseUint(p)
			r.Disabled = v != 0
		case tagUserPolicy:
			r.Policy = string(p)
		}
		return err
	})
	if err != nil {
		return err
	}
	switch {
	case uid == 0 && gid == 0:
	case uid == 0 || gid == 0 || uid > math.MaxUint32+1 || gid > math.MaxUint32+1:
		return corrupt("user uid/gid %d/%d", uid, gid)
	default:
		r.POSIX = &POSIXOwner{UID: int(uid - 1), GID: int(gid - 1)}
	}
	*u = r
	return nil
}

// users returns the users bucket, creating it in a write transaction if
// an index written by an older version lacks it; in a read transaction a
// missing bucket is nil (no users).
func users(tx kvTx) (kvBucket, error) {
	if b := tx.Bucket(usersBucket); b != nil || !tx.Writable() {
		return b, nil
	}
	return tx.CreateBucketIfNotExists(usersBucket)
}

// CreateUser records a new user. It returns ErrUserExists if the access
// key id is taken, and an error for an empty one.
func (ix *Index) CreateUser(u User) error {
	if u.AccessKey == "" {
		return errors.New("metadata: empty access key id")
	}
	v, err := u.MarshalBinary()
	if err != nil {
		return err
	}
	key := []byte(u.AccessKey)
	return ix.update(func(tx kvTx) error {
		b, err := users(tx)
		if err != nil {
			return written(err)
		}
		if b.Get(key) != nil {
			return ErrUserExists
		}
		return written(b.Put(key, v))
	})
}

// User returns the record of an access key id, or ErrNoSuchUser.
func (ix *Index) User(accessKey string) (User, error) {
	var u User
	err := ix.view(func(tx kvTx) error {
		b, _ := users(tx)
		var v []byte
		if b != nil {
			v = b.Get([]byte(accessKey))
		}
		if v == nil {
			return ErrNoSuchUser
		}
		if err := u.UnmarshalBinary(v); err != nil {
			return fmt.Errorf("metadata: user %q: %w", accessKey, err)
		}
		return nil
	})
	if err != nil {
		return User{}, err
	}
	u.AccessKey = accessKey
	return u, nil
}

// Users returns every user record, sorted by access key id.
func (ix *Index) Users() ([]User, error) {
	var out []User
	err := ix.view(func(tx kvTx) error {
		b, _ := users(tx)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var u User
			if err := u.UnmarshalBinary(v); err != nil {
				return fmt.Errorf("metadata: user %q: %w", k, err)
			}
			u.AccessKey = string(k)
			out = append(out, u)
			return nil
		})
	})
	return out, err
}

// UpdateUser changes a user record in one transaction: fn gets the
// current record and edits it in place (AccessKey cannot change). It
// returns ErrNoSuchUser if there is none, or fn's error, in which case
// nothing is written.
func (ix *Index) UpdateUser(accessKey string, fn func(u *User) error) error {
	key := []byte(accessKey)
	return ix.update(func(tx kvTx) error {
		b, err := users(tx)
		if err != nil {
			return written(err)
		}
		v := b.Get(key)
		if v == nil {
			return ErrNoSuchUser
		}
		var u User
		if err := u.UnmarshalBinary(v); err != nil {
			return fmt.Errorf("metadata: user %q: %w", accessKey, err)
		}
		u.AccessKey = accessKey
		if err := fn(&u); err != nil {
			return err
		}
		nv, err := u.MarshalBinary()
		if err != nil {
			return err
		}
		return written(b.Put(key, nv))
	})
}

// DeleteUser removes a user record, or returns ErrNoSuchUser. The buckets
// it owns keep their Owner, so only the root user can reach them.
func (ix *Index) DeleteUser(accessKey string) error {
	key := []byte(accessKey)
	return ix.update(func(tx kvTx) error {
		b, err := users(tx)
		if err != nil {
			return written(err)
		}
		if b.Get(key) == nil {
			return ErrNoSuchUser
		}
		return written(b.Delete(key))
	})
}
