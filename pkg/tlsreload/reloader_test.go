package tlsreload

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// writeVersion writes a new self-signed pair into dir/name/ and returns
// its certificate's DER.
func writeVersion(t *testing.T, dir, name string) []byte {
	t.Helper()
	c, k, err := generate(nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "tls.crt"), c, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "tls.key"), k, 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := pem.Decode(c)
	return b.Bytes
}

// swapLink points dir/current at target by renaming a new symlink over it,
// the way Kubernetes updates a mounted secret.
func swapLink(t *testing.T, dir, target string) {
	t.Helper()
	tmp := filepath.Join(dir, "current.tmp")
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "current")); err != nil {
		t.Fatal(err)
	}
}

// TestPollSymlinkSwap follows a pair published through a symlink swapped
// to a new directory: the file check, which stats the paths, sees it.
func TestPollSymlinkSwap(t *testing.T) {
	dir := t.TempDir()
	v1 := writeVersion(t, dir, "v1")
	swapLink(t, dir, "v1")
	r, err := New(Options{CertFile: filepath.Join(dir, "current", "tls.crt"), KeyFile: filepath.Join(dir, "current", "tls.key"), Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Certificate().Raw, v1) {
		t.Fatal("New does not serve the pair it loaded")
	}
	if tried, err := r.Poll(); tried || err != nil {
		t.Fatalf("Poll without a change: tried %v, %v", tried, err)
	}
	v2 := writeVersion(t, dir, "v2")
	swapLink(t, dir, "v2")
	if tried, err := r.Poll(); !tried || err != nil {
		t.Fatalf("Poll after the symlink swap: tried %v, %v", tried, err)
	}
	if !bytes.Equal(r.Certificate().Raw, v2) {
		t.Error("after the symlink swap the old certificate is still served")
	}
	if tried, _ := r.Poll(); tried {
		t.Error("Poll tried again without a change")
	}
}

// TestPollFailureTriedOnce removes the key: the check fails once, keeps
// the certificate, is not retried until a file changes, and takes the
// pair once it is whole again.
func TestPollFailureTriedOnce(t *testing.T) {
	dir := t.TempDir()
	v1 := writeVersion(t, dir, "p")
	certFile, keyFile := filepath.Join(dir, "p", "tls.crt"), filepath.Join(dir, "p", "tls.key")
	r, err := New(Options{CertFile: certFile, KeyFile: keyFile, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(keyFile); err != nil {
		t.Fatal(err)
	}
	if tried, err := r.Poll(); !tried || err == nil {
		t.Fatalf("Poll with the key gone: tried %v, %v; want a failure", tried, err)
	}
	if tried, _ := r.Poll(); tried {
		t.Error("a failed pair was tried again without a change")
	}
	if !bytes.Equal(r.Certificate().Raw, v1) {
		t.Error("a failed reload replaced the certificate")
	}
	v2 := writeVersion(t, dir, "p")
	if tried, err := r.Poll(); !tried || err != nil {
		t.Fatalf("Poll with the pair whole again: tried %v, %v", tried, err)
	}
	if !bytes.Equal(r.Certificate().Raw, v2) {
		t.Error("the whole pair was not taken")
	}
	if ok, failed := r.Reloads(); ok != 1 || failed != 1 {
		t.Errorf("Reloads: %d ok, %d failed; want 1 and 1", ok, failed)
	}
}

// TestSelfSigned generates a pair, reuses it, and replaces it once it has
// expired.
func TestSelfSigned(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	now := time.Now()
	cf, kf, created, err := SelfSigned(dir, []string{"gw.example.test", "10.1.2.3", "0.0.0.0", ""}, now)
	if err != nil || !created {
		t.Fatalf("first SelfSigned: created %v, %v", created, err)
	}
	c1, err := load(cf, kf)
	if err != nil {
		t.Fatal(err)
	}
	leaf := c1.Leaf
	if leaf.PublicKeyAlgorithm != x509.ECDSA || !leaf.IsCA {
		t.Errorf("certificate: %v CA %v, want ECDSA and its own CA", leaf.PublicKeyAlgorithm, leaf.IsCA)
	}
	for _, h := range []string{"localhost", "127.0.0.1", "::1", "gw.example.test", "10.1.2.3"} {
		if err := leaf.VerifyHostname(h); err != nil {
			t.Errorf("VerifyHostname: %v", err)
		}
	}
	if len(leaf.IPAddresses) != 3 {
		t.Errorf("IP SANs %v, want 127.0.0.1, ::1 and 10.1.2.3 (not 0.0.0.0)", leaf.IPAddresses)
	}
	if fi, err := os.Stat(kf); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, %v; want mode 0600", fi.Mode(), err)
	}
	if _, _, created, err := SelfSigned(dir, nil, now.Add(time.Hour)); err != nil || created {
		t.Errorf("second SelfSigned: created %v, %v; want the pair reused", created, err)
	}
	_, _, created, err = SelfSigned(dir, nil, leaf.NotAfter.Add(time.Second))
	if err != nil || !created {
		t.Fatalf("SelfSigned after expiry: created %v, %v; want a new pair", created, err)
	}
	c2, err := load(cf, kf)
	if err != nil || bytes.Equal(c2.Leaf.Raw, leaf.Raw) {
		t.Errorf("after expiry: %v, same certificate %v", err, err == nil && bytes.Equal(c2.Leaf.Raw, leaf.Raw))
	}
	if fp := Fingerprint(leaf); len(fp) != 95 {
		t.Errorf("Fingerprint %q: want 32 colon-separated bytes", fp)
	}
}
