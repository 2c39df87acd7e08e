package object

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/policy"
)

// This file keeps the gateway's users: access keys recorded in the index,
// each with its secret sealed (AES-256-GCM) under a key kept in a file of
// the state directory, next to but outside the index. SigV4 needs the
// secret itself to compute its HMACs, so the secret cannot be stored as a
// one-way hash; sealing it means a copy of the index alone reveals no
// secret. docs/users.md explains the trade-off.

// UsersKeyFile is the name, in the state directory, of the key that seals
// user secrets. It is created (0600) the first time a user is added.
const UsersKeyFile = "users.key"

// UserCacheTTL is how long Users.SecretKey trusts a secret it read from
// the index before reading it again, so that a user removed, disabled or
// rotated by another process stops working within this time. A key it
// does not know is always looked up in the index.
const UserCacheTTL = 5 * time.Second

var (
	// ErrNoSuchUser is returned when an access key id names no user.
	ErrNoSuchUser = metadata.ErrNoSuchUser
	// ErrUserExists is returned by AddUser when the access key id is taken
	// (by a user or by the root user).
	ErrUserExists = metadata.ErrUserExists
	// ErrUsersKey is wrapped by the errors of a missing or damaged
	// UsersKeyFile: secrets sealed under it cannot be read.
	ErrUsersKey = errors.New("object: users key unavailable")
	// ErrNoUserPolicy is returned by UserPolicy, and by SetUserPolicy
	// asked to remove it, when the user has no identity policy.
	ErrNoUserPolicy = errors.New("object: the user has no identity policy")
)

// User is a user as callers see it: never with its secret.
type User struct {
	AccessKey string
	Name      string
	Created   time.Time
	// POSIX, when set, owns the files and directories the user creates.
	POSIX    *POSIXOwner
	Disabled bool
	// HasPolicy is set when the user has an identity policy.
	HasPolicy bool
	// Email is the user's email address, "" for none.
	Email string
}

// POSIXOwner is a numeric file owner (uid, gid).
type POSIXOwner = metadata.POSIXOwner

// RootUser is the access key pair that administers every bucket. It is
// configured outside the index (environment or credentials file).
type RootUser struct {
	AccessKey, SecretKey string
}

// UsersOptions configure Users.
type UsersOptions struct {
	// Root is the root user; an empty AccessKey means there is none.
	Root RootUser
	// TTL bounds how long a secret read from the index is trusted; zero
	// means UserCacheTTL.
	TTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Users resolves access keys for SigV4 (it implements sigv4.Credentials)
// and manages the user records. Its methods are safe for concurrent use.
type Users struct {
	l    *Layer
	root RootUser
	ttl  time.Duration
	now  func() time.Time

	keyMu sync.Mutex
	aead  cipher.AEAD

	mu    sync.Mutex
	cache map[string]cachedUser
	// parsed keeps each user's identity policy as last parsed (guarded
	// by mu), so that a cache refill of an unchanged record does not
	// parse its policy again.
	parsed map[string]parsedPolicy
	// gen counts the changes made through this Users (guarded by mu). A
	// lookup that read the index keeps what it read only if no change
	// came in between: else a secret read just before a rotation could
	// be cached after it, and the old secret keep working for a TTL.
	gen uint64
	// afterRead, when set by a test, runs in lookup between the index
	// read and the cache fill.
	afterRead func()
}

// cachedUser is a user's unsealed secret and parsed identity policy as
// of one read of the index: the two always come from the same record.
type cachedUser struct {
	secret string
	posix  *POSIXOwner
	// identity is the user's identity policy, nil for none.
	identity *policy.Policy
	read     time.Time
}

// parsedPolicy is an identity policy document and its parse.
type parsedPolicy struct {
	doc string
	p   *policy.Policy
}

// Users returns the user store of the layer's index.
func (l *Layer) Users(o UsersOptions) *Users {
	if o.TTL <= 0 {
		o.TTL = UserCacheTTL
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Users{l: l, root: o.Root, ttl: o.TTL, now: o.Now, cache: make(map[string]cachedUser), parsed: make(map[string]parsedPolicy)}
}

// SecretKey implements sigv4.Credentials: the root user's secret, or the
// secret of an enabled user in the index. A secret that cannot be
// unsealed (UsersKeyFile missing or replaced) authenticates nobody.
func (u *Users) SecretKey(accessKey string) (string, bool) {
	if accessKey == "" {
		return "", false
	}
	if u.root.AccessKey != "" && accessKey == u.root.AccessKey {
		return u.root.SecretKey, true
	}
	c, ok := u.lookup(accessKey)
	return c.secret, ok
}

// IsRoot reports whether accessKey is the root user's.
func (u *Users) IsRoot(accessKey string) bool {
	return u.root.AccessKey != "" && accessKey == u.root.AccessKey
}

// FileOwner returns the POSIX owner mapped to an access key, if any. The
// root user has none: its files keep the gateway process's ownership.
func (u *Users) FileOwner(accessKey string) (POSIXOwner, bool) {
	if accessKey == "" || u.IsRoot(accessKey) {
		return POSIXOwner{}, false
	}
	c, ok := u.lookup(accessKey)
	if !ok || c.posix == nil {
		return POSIXOwner{}, false
	}
	return *c.posix, true
}

// lookup returns an enabled user's unsealed secret, from the cache while
// it is younger than the TTL, else from the index.
func (u *Users) lookup(accessKey string) (cachedUser, bool) {
	now := u.now()
	u.mu.Lock()
	c, ok := u.cache[accessKey]
	gen := u.gen
	u.mu.Unlock()
	if ok && now.Sub(c.read) < u.ttl {
		return c, true
	}
	rec, err := u.l.ix.User(accessKey)
	if u.afterRead != nil {
		u.afterRead()
	}
	if err == nil && !rec.Disabled {
		var secret []byte
		if secret, err = u.unseal(accessKey, rec.SealedSecret); err == nil {
			c = cachedUser{secret: string(secret), posix: rec.POSIX, identity: u.identityOf(accessKey, rec.Policy), read: now}
			u.mu.Lock()
			if u.gen == gen {
				u.cache[accessKey] = c
			}
			u.mu.Unlock()
			return c, true
		}
	}
	u.mu.Lock()
	if u.gen == gen {
		delete(u.cache, accessKey)
	}
	u.mu.Unlock()
	return cachedUser{}, false
}

// denyAll is the identity policy of a user whose stored policy does not
// parse (a damaged record, or one written by a later version with a
// grammar this one lacks): the user is denied everything rather than
// given more than its policy said.
var denyAll = func() *policy.Policy {
	p, err := policy.ParseIdentity([]byte(`{"Version":"2012-10-17","Statement":{"Effect":"Deny","Action":"*","Resource":"*"}}`))
	if err != nil {
		panic(err)
	}
	return p
}()

// identityOf returns the parsed identity policy of a user whose record
// holds doc: the last parse when the document has not changed, else a
// new one.
func (u *Users) identityOf(accessKey, doc string) *policy.Policy {
	if doc == "" {
		return nil
	}
	u.mu.Lock()
	pp, ok := u.parsed[accessKey]
	u.mu.Unlock()
	if ok && pp.doc == doc {
		return pp.p
	}
	p, err := policy.ParseIdentity([]byte(doc))
	if err != nil {
		p = denyAll
	}
	u.mu.Lock()
	u.parsed[accessKey] = parsedPolicy{doc: doc, p: p}
	u.mu.Unlock()
	return p
}

// IdentityPolicy returns the identity policy of an enabled user, nil when
// it has none; the root user, unknown and disabled keys have none. The
// policy comes from the same cached read of the user's record as its
// secret (see SecretKey), and a change made through this Users is seen
// by the next call. A stored policy that no longer parses denies
// everything.
func (u *Users) IdentityPolicy(accessKey string) *policy.Policy {
	if accessKey == "" || u.IsRoot(accessKey) {
		return nil
	}
	c, ok := u.lookup(accessKey)
	if !ok {
		return nil
	}
	return c.identity
}

// UserPolicy returns the identity policy document of a user as it was
// put, ErrNoUserPolicy when it has none, or ErrNoSuchUser.
func (u *Users) UserPolicy(accessKey string) (string, error) {
	rec, err := u.l.ix.User(accessKey)
	if err != nil {
		return "", err
	}
	if rec.Policy == "" {
		return "", ErrNoUserPolicy
	}
	return rec.Policy, nil
}

// SetUserPolicy attaches the identity policy doc to a user, replacing
// the one it had; an empty doc removes it (ErrNoUserPolicy when there is
// none). doc is validated first (policy.ParseIdentity): an invalid one is
// an *s3err.Error MalformedPolicy and changes nothing. The change is one
// index transaction, so a request sees the old policy or the new one;
// it is in force from the next request for this Users, and within the
// TTL for another Users of the same index.
func (u *Users) SetUserPolicy(accessKey, doc string) error {
	if doc != "" {
		if _, err := policy.ParseIdentity([]byte(doc)); err != nil {
			return err
		}
	}
	err := u.l.ix.UpdateUser(accessKey, func(r *metadata.User) error {
		if doc == "" && r.Policy == "" {
			return ErrNoUserPolicy
		}
		r.Policy = doc
		return nil
	})
	u.forget(accessKey)
	return err
}

// forget drops a user's cached secret after a change to its record, and
// makes lookups that read the record before the change keep nothing.
func (u *Users) forget(accessKey string) {
	u.mu.Lock()
	delete(u.cache, accessKey)
	u.gen++
	u.mu.Unlock()
}

// AddUserInput is one new user.
type AddUserInput struct {
	Name string
	// AccessKey is the access key id; empty generates one (20 characters,
	// upper case letters and digits, as AWS's).
	AccessKey string
	// SecretKey is the secret; empty generates one (40 characters).
	SecretKey string
	POSIX     *POSIXOwner
	// Email, optional, names the user in ACL grants to an EmailAddress;
	// no two users may have the same.
	Email string
}

// AddUser records a new user and returns it with its secret, which is
// never retrievable again. An access key id must be 3 to 128 letters,
// digits, '-', '_' or '.'; a secret at least 8 characters. It returns
// ErrUserExists when the id is taken, by a user or by the root user.
func (u *Users) AddUser(in AddUserInput) (User, string, error) {
	if in.AccessKey == "" {
		in.AccessKey = randomString(20, upperAlnum)
	}
	if in.SecretKey == "" {
		in.SecretKey = randomString(40, secretChars)
	}
	if err := validAccessKey(in.AccessKey); err != nil {
		return User{}, "", err
	}
	if len(in.SecretKey) < 8 || len(in.SecretKey) > 512 {
		return User{}, "", errors.New("object: a secret key has 8 to 512 characters")
	}
	if u.IsRoot(in.AccessKey) {
		return User{}, "", fmt.Errorf("%w: %s is the root user's access key", ErrUserExists, in.AccessKey)
	}
	if p := in.POSIX; p != nil && (p.UID < 0 || p.GID < 0) {
		return User{}, "", errors.New("object: uid and gid must not be negative")
	}
	if in.Email != "" {
		if !strings.Contains(in.Email, "@") || len(in.Email) > 254 {
			return User{}, "", fmt.Errorf("object: %q is not an email address", in.Email)
		}
		if _, taken := u.UserByEmail(in.Email); taken {
			return User{}, "", fmt.Errorf("%w: another user has the email %s", ErrUserExists, in.Email)
		}
	}
	sealed, err := u.seal(in.AccessKey, []byte(in.SecretKey), true)
	if err != nil {
		return User{}, "", err
	}
	rec := metadata.User{
		AccessKey:    in.AccessKey,
		Name:         in.Name,
		SealedSecret: sealed,
		Created:      u.l.now().UTC().Truncate(time.Second),
		POSIX:        in.POSIX,
		Email:        in.Email,
	}
	if err := u.l.ix.CreateUser(rec); err != nil {
		return User{}, "", err
	}
	u.forget(in.AccessKey)
	return userOf(rec), in.SecretKey, nil
}

// RotateUser gives a user a new generated secret and returns it; the old
// one stops working at once for this Users (a request being verified
// while the rotation commits may still be checked against it) and within
// the TTL for another Users of the same index. The gateway makes every
// change through the Users that authenticates its requests (the control
// socket), so that none waits for a TTL.
func (u *Users) RotateUser(accessKey string) (string, error) {
	secret := randomString(40, secretChars)
	sealed, err := u.seal(accessKey, []byte(secret), true)
	if err != nil {
		return "", err
	}
	err = u.l.ix.UpdateUser(accessKey, func(r *metadata.User) error {
		r.SealedSecret = sealed
		return nil
	})
	u.forget(accessKey)
	if err != nil {
		return "", err
	}
	return secret, nil
}

// SetDisabled disables or re-enables a user. A disabled user fails
// authentication but keeps the ownership of its buckets.
func (u *Users) SetDisabled(accessKey string, disabled bool) error {
	err := u.l.ix.UpdateUser(accessKey, func(r *metadata.User) error {
		r.Disabled = disabled
		return nil
	})
	u.forget(accessKey)
	return err
}

// RemoveUser deletes a user. Its buckets keep their owner, so that only
// the root user reaches them (or a user later added with the same key).
func (u *Users) RemoveUser(accessKey string) error {
	err := u.l.ix.DeleteUser(accessKey)
	u.forget(accessKey)
	u.mu.Lock()
	delete(u.parsed, accessKey)
	u.mu.Unlock()
	return err
}

// List returns every user, sorted by access key id, without secrets.
func (u *Users) List() ([]User, error) {
	recs, err := u.l.ix.Users()
	if err != nil {
		return nil, err
	}
	out := make([]User, len(recs))
	for i, r := range recs {
		out[i] = userOf(r)
	}
	return out, nil
}

func userOf(r metadata.User) User {
	return User{AccessKey: r.AccessKey, Name: r.Name, Created: r.Created, POSIX: r.POSIX, Disabled: r.Disabled, Email: r.Email, HasPolicy: r.Policy != ""}
}

// UserByEmail returns the access key of the user whose email is email
// (compared without regard to case, as S3 does); ok is false when none
// has it. It reads every user record: only ACL writes that name an
// EmailAddress grantee ask it.
func (u *Users) UserByEmail(email string) (accessKey string, ok bool) {
	recs, err := u.l.ix.Users()
	if err != nil {
		return "", false
	}
	for _, r := range recs {
		if r.Email != "" && strings.EqualFold(r.Email, email) {
			return r.AccessKey, true
		}
	}
	return "", false
}

func validAccessKey(ak string) error {
	if len(ak) < 3 || len(ak) > 128 {
		return fmt.Errorf("object: access key id %q: 3 to 128 characters", ak)
	}
	for i := 0; i < len(ak); i++ {
		c := ak[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("object: access key id %q: only letters, digits, '-', '_' and '.'", ak)
		}
	}
	return nil
}

// Sealed secrets are sealVersion, a random nonce, then the AES-GCM
// ciphertext and tag. The access key id is the additional data, so a
// sealed secret copied onto another user's record does not open.
const sealVersion = 1

func sealAD(accessKey string) []byte {
	return []byte("objectgateway user secret\x00" + accessKey)
}

func (u *Users) seal(accessKey string, secret []byte, create bool) ([]byte, error) {
	aead, err := u.key(create)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 1+aead.NonceSize(), 1+aead.NonceSize()+len(secret)+aead.Overhead())
	out[0] = sealVersion
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, err
	}
	return aead.Seal(out, out[1:], secret, sealAD(accessKey)), nil
}

func (u *Users) unseal(accessKey string, sealed []byte) ([]byte, error) {
	aead, err := u.key(false)
	if err != nil {
		return nil, err
	}
	n := aead.NonceSize()
	if len(sealed) < 1+n || sealed[0] != sealVersion {
		return nil, fmt.Errorf("%w: sealed secret of %s is malformed", ErrUsersKey, accessKey)
	}
	secret, err := aead.Open(nil, sealed[1:1+n], sealed[1+n:], sealAD(accessKey))
	if err != nil {
		return nil, fmt.Errorf("%w: the secret of %s does not open with %s", ErrUsersKey, accessKey, UsersKeyFile)
	}
	return secret, nil
}

// key returns the sealing cipher, reading UsersKeyFile once. With create
// it makes the file when it does not exist yet, unless the index already
// holds users (their secrets were sealed under a key that is now lost,
// and a new key would hide that).
func (u *Users) key(create bool) (cipher.AEAD, error) {
	u.keyMu.Lock()
	defer u.keyMu.Unlock()
	if u.aead != nil {
		return u.aead, nil
	}
	path := u.l.StatePath(UsersKeyFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, iofs.ErrNotExist) && create {
		recs, lerr := u.l.ix.Users()
		if lerr != nil {
			return nil, lerr
		}
		if len(recs) > 0 {
			return nil, fmt.Errorf("%w: %s is missing but the index holds %d users; restore it, or remove those users", ErrUsersKey, path, len(recs))
		}
		raw, err = createKeyFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUsersKey, err)
	}
	if len(raw) != 32 {
		return nil, fmt.Errorf("%w: %s is not a 32-byte key", ErrUsersKey, path)
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	u.aead = aead
	return aead, nil
}

// createKeyFile writes a new random key to path (0600), durably, without
// ever replacing an existing file: the key is written to a temp file and
// hard-linked into place, so of two racing creators one wins and the
// other reads the winner's key.
func createKeyFile(path string) ([]byte, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".users-key-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, err
	}
	if _, err := tmp.Write(key); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, iofs.ErrExist) {
			return os.ReadFile(path)
		}
		return nil, err
	}
	if d, err := os.Open(dir); err == nil {
		err = d.Sync()
		d.Close()
		if err != nil {
			return nil, err
		}
	}
	return key, nil
}

const (
	upperAlnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	secretChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
)

// randomString draws n characters uniformly from alphabet (len ≤ 256).
func randomString(n int, alphabet string) string {
	out := make([]byte, 0, n)
	limit := 256 - 256%len(alphabet)
	buf := make([]byte, 2*n)
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			panic(err) // crypto/rand never fails on Linux
		}
		for _, b := range buf {
			if int(b) < limit && len(out) < n {
				out = append(out, alphabet[int(b)%len(alphabet)])
			}
		}
	}
	return string(out)
}
