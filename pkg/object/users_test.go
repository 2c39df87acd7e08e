package object

import (
	"bytes"
	"errors"
	"os"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for the user cache's TTL.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var testRoot = RootUser{AccessKey: "ROOTKEY", SecretKey: "root-secret-0123456789"}

func TestUsersAuthenticate(t *testing.T) {
	l, _ := newLayer(t)
	u := l.Users(UsersOptions{Root: testRoot})
	if s, ok := u.SecretKey("ROOTKEY"); !ok || s != testRoot.SecretKey || !u.IsRoot("ROOTKEY") {
		t.Fatalf("root: %q %v", s, ok)
	}
	if _, ok := u.SecretKey("NOBODY"); ok {
		t.Fatal("an unknown key authenticated")
	}
	if _, ok := u.SecretKey(""); ok {
		t.Fatal("the empty key authenticated")
	}
	alice, secret, err := u.AddUser(AddUserInput{Name: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if len(alice.AccessKey) != 20 || len(secret) != 40 || alice.Name != "alice" || alice.Created.IsZero() {
		t.Fatalf("generated user %+v, secret of %d characters", alice, len(secret))
	}
	if s, ok := u.SecretKey(alice.AccessKey); !ok || s != secret || u.IsRoot(alice.AccessKey) {
		t.Fatalf("alice: %q %v", s, ok)
	}
	if _, ok := u.FileOwner(alice.AccessKey); ok {
		t.Error("alice has a file owner she was not given")
	}
	if _, _, err := u.AddUser(AddUserInput{AccessKey: alice.AccessKey}); !errors.Is(err, ErrUserExists) {
		t.Errorf("AddUser with a taken key: %v", err)
	}
	if _, _, err := u.AddUser(AddUserInput{AccessKey: "ROOTKEY"}); !errors.Is(err, ErrUserExists) {
		t.Errorf("AddUser with the root's key: %v", err)
	}
	for _, bad := range []string{"ab", "has space", "slash/key", string(make([]byte, 129))} {
		if _, _, err := u.AddUser(AddUserInput{AccessKey: bad}); err == nil {
			t.Errorf("AddUser(%q) succeeded", bad)
		}
	}
	if _, _, err := u.AddUser(AddUserInput{AccessKey: "SHORTSECRET", SecretKey: "short"}); err == nil {
		t.Error("a 5-character secret was accepted")
	}
	bob, _, err := u.AddUser(AddUserInput{AccessKey: "AKIDBOB", SecretKey: "bob-secret-key", POSIX: &POSIXOwner{UID: 1001, GID: 1002}})
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := u.FileOwner(bob.AccessKey); !ok || o.UID != 1001 || o.GID != 1002 {
		t.Errorf("bob's file owner: %+v %v", o, ok)
	}

	newSecret, err := u.RotateUser(alice.AccessKey)
	if err != nil || newSecret == secret || len(newSecret) != 40 {
		t.Fatalf("RotateUser: %q, %v", newSecret, err)
	}
	if s, ok := u.SecretKey(alice.AccessKey); !ok || s != newSecret {
		t.Errorf("after rotation SecretKey = %q, %v", s, ok)
	}
	if err := u.SetDisabled(alice.AccessKey, true); err != nil {
		t.Fatal(err)
	}
	if _, ok := u.SecretKey(alice.AccessKey); ok {
		t.Error("a disabled user authenticated")
	}
	list, err := u.List()
	byKey := map[string]User{}
	for _, x := range list {
		byKey[x.AccessKey] = x
	}
	if err != nil || len(list) != 2 || byKey["AKIDBOB"].POSIX == nil || !byKey[alice.AccessKey].Disabled || byKey["AKIDBOB"].Disabled {
		t.Errorf("List: %+v, %v", list, err)
	}
	if err := u.RemoveUser(alice.AccessKey); err != nil {
		t.Fatal(err)
	}
	if err := u.RemoveUser(alice.AccessKey); !errors.Is(err, ErrNoSuchUser) {
		t.Errorf("second RemoveUser: %v", err)
	}
	if _, err := u.RotateUser("NOBODY"); !errors.Is(err, ErrNoSuchUser) {
		t.Errorf("RotateUser(NOBODY): %v", err)
	}
}

// TestUsersSecretsSealed checks that the index file holds no secret in
// plain text, that the key file is private, and that without the key
// file nobody authenticates and no new key silently replaces it.
func TestUsersSecretsSealed(t *testing.T) {
	root := t.TempDir()
	l, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	u := l.Users(UsersOptions{Root: testRoot})
	const secret = "SECRET-MARKER-that-must-not-be-stored-in-the-index"
	if _, _, err := u.AddUser(AddUserInput{AccessKey: "AKIDSEALED", SecretKey: secret}); err != nil {
		t.Fatal(err)
	}
	indexPath, keyPath := l.StatePath(IndexFile), l.StatePath(UsersKeyFile)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(index, []byte("AKIDSEALED")) {
		t.Fatal("the index does not hold the user at all: the check below would prove nothing")
	}
	if bytes.Contains(index, []byte(secret)) || bytes.Contains(index, []byte(secret[:16])) {
		t.Fatal("the index file holds the secret in plain text")
	}
	st, err := os.Stat(keyPath)
	if err != nil || st.Mode().Perm() != 0o600 || st.Size() != 32 {
		t.Fatalf("key file: %v, %v", st, err)
	}

	// Reopened, the secret opens again.
	l, err = Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	u = l.Users(UsersOptions{Root: testRoot})
	if s, ok := u.SecretKey("AKIDSEALED"); !ok || s != secret {
		t.Fatalf("after reopening: %q, %v", s, ok)
	}
	l.Close()

	// Without the key file, or with another one, nothing opens, and a
	// new user is refused rather than sealed under a new key.
	for _, replace := range []bool{false, true} {
		os.Remove(keyPath)
		if replace {
			os.WriteFile(keyPath, bytes.Repeat([]byte{7}, 32), 0o600)
		}
		l, err = Open(Options{Root: root})
		if err != nil {
			t.Fatal(err)
		}
		u = l.Users(UsersOptions{Root: testRoot})
		if _, ok := u.SecretKey("AKIDSEALED"); ok {
			t.Errorf("replace=%v: the secret opened without its key", replace)
		}
		if _, ok := u.SecretKey("ROOTKEY"); !ok {
			t.Errorf("replace=%v: the root user no longer authenticates", replace)
		}
		_, _, err = u.AddUser(AddUserInput{AccessKey: "AKIDNEW"})
		if !replace && !errors.Is(err, ErrUsersKey) {
			t.Errorf("AddUser with the key file missing: %v, want ErrUsersKey", err)
		}
		l.Close()
	}
}

// TestUsersCacheTTL checks that changes made through another Users (as by
// the CLI in another process) take effect within the TTL, and that an
// unknown key is always looked up.
func TestUsersCacheTTL(t *testing.T) {
	l, _ := newLayer(t)
	clock := &fakeClock{t: time.Unix(1700000000, 0)}
	server := l.Users(UsersOptions{Root: testRoot, Now: clock.now, TTL: 5 * time.Second})
	cli := l.Users(UsersOptions{Root: testRoot})

	if _, ok := server.SecretKey("AKIDLATE"); ok {
		t.Fatal("unknown key authenticated")
	}
	if _, _, err := cli.AddUser(AddUserInput{AccessKey: "AKIDLATE", SecretKey: "first-secret"}); err != nil {
		t.Fatal(err)
	}
	if s, ok := server.SecretKey("AKIDLATE"); !ok || s != "first-secret" {
		t.Fatalf("a user added elsewhere is not seen at once: %q %v", s, ok)
	}
	second, err := cli.RotateUser("AKIDLATE")
	if err != nil {
		t.Fatal(err)
	}
	clock.advance(4 * time.Second)
	if s, _ := server.SecretKey("AKIDLATE"); s != "first-secret" {
		t.Errorf("within the TTL the cached secret is used; got %q", s)
	}
	clock.advance(2 * time.Second)
	if s, _ := server.SecretKey("AKIDLATE"); s != second {
		t.Errorf("after the TTL the rotated secret is used; got %q", s)
	}
	if err := cli.RemoveUser("AKIDLATE"); err != nil {
		t.Fatal(err)
	}
	clock.advance(6 * time.Second)
	if _, ok := server.SecretKey("AKIDLATE"); ok {
		t.Error("a removed user still authenticates after the TTL")
	}
}

// TestUsersRotateDuringLookup rotates a secret while a lookup that read
// the old record is still under way: that lookup may answer with the old
// secret (its request raced the change), but must not cache it, so the
// next lookup sees the rotation at once and not after the TTL.
func TestUsersRotateDuringLookup(t *testing.T) {
	l, _ := newLayer(t)
	clock := &fakeClock{t: time.Unix(1700000000, 0)}
	u := l.Users(UsersOptions{Root: testRoot, Now: clock.now, TTL: time.Hour})
	if _, _, err := u.AddUser(AddUserInput{AccessKey: "AKIDRACE", SecretKey: "first-secret"}); err != nil {
		t.Fatal(err)
	}
	var rotated string
	u.afterRead = func() {
		u.afterRead = nil
		var err error
		if rotated, err = u.RotateUser("AKIDRACE"); err != nil {
			t.Error(err)
		}
	}
	if s, ok := u.SecretKey("AKIDRACE"); !ok || s != "first-secret" {
		t.Fatalf("the racing lookup: %q %v", s, ok)
	}
	if s, ok := u.SecretKey("AKIDRACE"); !ok || s != rotated {
		t.Errorf("after the rotation SecretKey = %q, %v; want the rotated secret", s, ok)
	}
}

// TestUsersEmail checks the optional email of a user: kept, found without
// regard to case, unique, and checked for an @.
func TestUsersEmail(t *testing.T) {
	l, _ := newLayer(t)
	u := l.Users(UsersOptions{Root: testRoot})
	if _, _, err := u.AddUser(AddUserInput{AccessKey: "AKIDCAROL", Email: "carol@example.com"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := u.AddUser(AddUserInput{AccessKey: "AKIDDAVE"}); err != nil {
		t.Fatal(err)
	}
	if k, ok := u.UserByEmail("Carol@Example.com"); !ok || k != "AKIDCAROL" {
		t.Errorf("UserByEmail = %q, %v", k, ok)
	}
	if _, ok := u.UserByEmail("dave@example.com"); ok {
		t.Error("an email no user has was found")
	}
	if _, _, err := u.AddUser(AddUserInput{AccessKey: "AKIDEVE", Email: "CAROL@example.com"}); !errors.Is(err, ErrUserExists) {
		t.Errorf("a second user with the same email: %v", err)
	}
	if _, _, err := u.AddUser(AddUserInput{AccessKey: "AKIDEVE", Email: "eve"}); err == nil {
		t.Error("an email without @ was accepted")
	}
	list, err := u.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range list {
		if x.AccessKey == "AKIDCAROL" && x.Email != "carol@example.com" {
			t.Errorf("List shows email %q", x.Email)
		}
	}
}
