package kms

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestRingCreatedPrivateAndReopened checks the ring file is created 0600
// with the default key on first use and that a reopened ring (a restart)
// unseals what the first one sealed.
func TestRingCreatedPrivateAndReopened(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kms.json")
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("ring file mode %v, want 0600", fi.Mode().Perm())
	}
	dk := bytes.Repeat([]byte{7}, 32)
	v, sealed, err := r.Seal(DefaultKey, dk, []byte("ctx"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, dk) {
		t.Fatal("sealed key contains the data key")
	}
	r2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r2.Unseal(DefaultKey, v, sealed, []byte("ctx"))
	if err != nil || !bytes.Equal(got, dk) {
		t.Fatalf("Unseal after reopen = %x, %v", got, err)
	}
	if _, err := r2.Unseal(DefaultKey, v, sealed, []byte("other")); !errors.Is(err, ErrUnseal) {
		t.Fatalf("Unseal with another context: %v, want ErrUnseal", err)
	}
}

// TestRingRotateKeepsOldVersions checks that rotation seals with the new
// version while data keys sealed by the old one still unseal, and that a
// ring opened before the rotation (a running gateway) sees it.
func TestRingRotateKeepsOldVersions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kms.json")
	server, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.Create("app"); err != nil {
		t.Fatal(err)
	}
	dk := []byte("0123456789abcdef0123456789abcdef")
	v1, s1, err := server.Seal("app", dk, nil)
	if err != nil || v1 != 1 {
		t.Fatalf("Seal = %d, %v", v1, err)
	}
	if n, err := cli.Rotate("app"); err != nil || n != 2 {
		t.Fatalf("Rotate = %d, %v", n, err)
	}
	v2, s2, err := server.Seal("app", dk, nil)
	if err != nil || v2 != 2 {
		t.Fatalf("Seal after rotation used version %d, %v; want 2", v2, err)
	}
	for _, c := range []struct {
		v uint64
		s []byte
	}{{v1, s1}, {v2, s2}} {
		if got, err := server.Unseal("app", c.v, c.s, nil); err != nil || !bytes.Equal(got, dk) {
			t.Fatalf("Unseal version %d = %v", c.v, err)
		}
	}
	if err := cli.SetDisabled("app", true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := server.Seal("app", dk, nil); !errors.Is(err, ErrDisabled) {
		t.Fatalf("Seal under a disabled key: %v", err)
	}
	if _, err := server.Unseal("app", 1, s1, nil); !errors.Is(err, ErrDisabled) {
		t.Fatalf("Unseal under a disabled key: %v", err)
	}
	if err := cli.Create("app"); !errors.Is(err, ErrExists) {
		t.Fatalf("Create twice: %v", err)
	}
	if err := cli.Create("bad name"); !errors.Is(err, ErrName) {
		t.Fatalf("Create with a space: %v", err)
	}
	if _, _, err := server.Seal("nope", dk, nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Seal under a missing key: %v", err)
	}
}

// Gateways starting together on a shared root open a ring that does not
// exist yet: one makes it, and every one of them then seals and unseals
// with the same keys.
func TestRingCreatedOnceByGatewaysStartingTogether(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keyring.json")
	const n = 8
	rings := make([]*Ring, n)
	var wg sync.WaitGroup
	for i := range rings {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := Open(path)
			if err != nil {
				t.Error(err)
				return
			}
			rings[i] = r
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	ctx := []byte("bucket/key")
	for i, r := range rings {
		v, sealed, err := r.Seal(DefaultKey, []byte("data key"), ctx)
		if err != nil {
			t.Fatal(err)
		}
		for j, other := range rings {
			if got, err := other.Unseal(DefaultKey, v, sealed, ctx); err != nil || string(got) != "data key" {
				t.Fatalf("a data key sealed through ring %d does not unseal through ring %d: %q %v", i, j, got, err)
			}
		}
	}
}

// Edits made at once through rings of separate gateways (or the kms
// command beside a gateway) are all kept.
func TestRingEditsOfSeveralProcessesAllKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keyring.json")
	first, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	second, err := OpenExisting(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := first
			if i%2 == 1 {
				r = second
			}
			if err := r.Create(fmt.Sprintf("key-%02d", i)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	keys, err := first.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 21 {
		t.Fatalf("%d keys after 20 creates through two rings and the default one, want 21", len(keys))
	}
}
