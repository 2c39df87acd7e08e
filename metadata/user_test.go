package metadata

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestUserRecordRoundTrip(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, u := range []User{
		{},
		{Name: "alice", SealedSecret: []byte{1, 2, 3, 0, 255}, Created: created},
		{Name: "root-owned", Created: created, POSIX: &POSIXOwner{UID: 0, GID: 0}},
		{Created: created, POSIX: &POSIXOwner{UID: 1000, GID: 4294967295}, Disabled: true},
		{Name: "reader", Created: created, Policy: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`},
	} {
		data, err := u.MarshalBinary()
		if err != nil {
			t.Fatalf("MarshalBinary(%+v): %v", u, err)
		}
		var got User
		if err := got.UnmarshalBinary(data); err != nil {
			t.Fatalf("UnmarshalBinary(%+v): %v", u, err)
		}
		if u.SealedSecret == nil {
			u.SealedSecret = got.SealedSecret // nil and empty are the same
		}
		if !reflect.DeepEqual(got, u) {
			t.Errorf("round trip: got %+v, want %+v", got, u)
		}
	}
	if _, err := (&User{POSIX: &POSIXOwner{UID: -1}}).MarshalBinary(); err == nil {
		t.Error("a negative uid was encoded")
	}
	// A uid without a gid is corrupt.
	e := encoder{}
	e.b = append(e.b, recordVersion)
	e.uint(tagUserUID, 5)
	var u User
	if err := u.UnmarshalBinary(e.b); !errors.Is(err, errCorrupt) {
		t.Errorf("uid without gid: %v, want errCorrupt", err)
	}
}

func TestIndexUsers(t *testing.T) {
	ix, err := Open(filepath.Join(t.TempDir(), "index.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if us, err := ix.Users(); err != nil || len(us) != 0 {
		t.Fatalf("Users on a new index: %v, %v", us, err)
	}
	if _, err := ix.User("nobody"); !errors.Is(err, ErrNoSuchUser) {
		t.Fatalf("User(nobody): %v", err)
	}
	created := time.Unix(1700000000, 0).UTC()
	for _, ak := range []string{"BBB", "AAA"} {
		if err := ix.CreateUser(User{AccessKey: ak, Name: "n-" + ak, SealedSecret: []byte("s-" + ak), Created: created}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.CreateUser(User{AccessKey: "AAA"}); !errors.Is(err, ErrUserExists) {
		t.Errorf("duplicate CreateUser: %v", err)
	}
	if err := ix.CreateUser(User{}); err == nil {
		t.Error("CreateUser with an empty access key succeeded")
	}
	us, err := ix.Users()
	if err != nil || len(us) != 2 || us[0].AccessKey != "AAA" || us[1].AccessKey != "BBB" || string(us[1].SealedSecret) != "s-BBB" {
		t.Fatalf("Users: %+v, %v", us, err)
	}
	if err := ix.UpdateUser("AAA", func(u *User) error { u.Disabled = true; u.POSIX = &POSIXOwner{UID: 7, GID: 8}; return nil }); err != nil {
		t.Fatal(err)
	}
	u, err := ix.User("AAA")
	if err != nil || !u.Disabled || u.POSIX == nil || u.POSIX.UID != 7 || u.Name != "n-AAA" || !u.Created.Equal(created) {
		t.Fatalf("User(AAA) after update: %+v, %v", u, err)
	}
	boom := errors.New("boom")
	if err := ix.UpdateUser("AAA", func(u *User) error { u.Name = "changed"; return boom }); !errors.Is(err, boom) {
		t.Errorf("UpdateUser with a failing fn: %v", err)
	}
	if u, _ := ix.User("AAA"); u.Name != "n-AAA" {
		t.Errorf("a failed update was written: %+v", u)
	}
	if err := ix.UpdateUser("ZZZ", func(*User) error { return nil }); !errors.Is(err, ErrNoSuchUser) {
		t.Errorf("UpdateUser(ZZZ): %v", err)
	}
	if err := ix.DeleteUser("AAA"); err != nil {
		t.Fatal(err)
	}
	if err := ix.DeleteUser("AAA"); !errors.Is(err, ErrNoSuchUser) {
		t.Errorf("second DeleteUser: %v", err)
	}
	if us, _ := ix.Users(); len(us) != 1 {
		t.Errorf("Users after delete: %+v", us)
	}
}

// FuzzUserRecord checks that decoding arbitrary bytes never panics and
// that whatever decodes re-encodes to a record that decodes equal.
func FuzzUserRecord(f *testing.F) {
	for _, u := range []User{
		{},
		{Name: "alice", SealedSecret: []byte{1, 2, 3}, Created: time.Unix(1700000000, 5).UTC(), POSIX: &POSIXOwner{UID: 0, GID: 1}, Disabled: true},
	} {
		b, err := u.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{1, 4, 1, 0})    // uid present but zero
	f.Add([]byte{1, 99, 1, 'x'}) // unknown field
	f.Fuzz(func(t *testing.T, data []byte) {
		var u1 User
		if err := u1.UnmarshalBinary(data); err != nil {
			return
		}
		b, err := u1.MarshalBinary()
		if err != nil {
			t.Fatalf("re-encoding %+v: %v", u1, err)
		}
		var u2 User
		if err := u2.UnmarshalBinary(b); err != nil {
			t.Fatalf("decoding the re-encoding: %v", err)
		}
		if len(u1.SealedSecret) == 0 {
			u1.SealedSecret, u2.SealedSecret = nil, nil
		}
		if !reflect.DeepEqual(u1, u2) {
			t.Fatalf("re-encoding changed the record: %+v → %+v", u1, u2)
		}
	})
}
