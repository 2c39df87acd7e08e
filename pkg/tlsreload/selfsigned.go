package tlsreload

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Names of the self-signed pair in its directory.
const (
	SelfSignedCert = "cert.pem"
	SelfSignedKey  = "key.pem"
)

// selfSignedLifetime is how long a generated certificate is valid. A
// certificate that has expired is replaced at the next start.
const selfSignedLifetime = 2 * 365 * 24 * time.Hour

// SelfSigned returns the paths of a self-signed pair in dir, generating an
// ECDSA P-256 certificate for localhost, 127.0.0.1, ::1 and hosts (DNS
// names or IP addresses) when dir holds no valid pair yet. created
// reports that it did. A pair that loads and has not expired is reused as
// it is, so that clients that trust it keep trusting it across restarts.
// The key is written with mode 0600, before the certificate, each by
// rename, so that a crash leaves either the old pair or one that does not
// load and is generated again.
func SelfSigned(dir string, hosts []string, now time.Time) (certFile, keyFile string, created bool, err error) {
	certFile, keyFile = filepath.Join(dir, SelfSignedCert), filepath.Join(dir, SelfSignedKey)
	if c, err := load(certFile, keyFile); err == nil && now.Before(c.Leaf.NotAfter) {
		return certFile, keyFile, false, nil
	}
	certPEM, keyPEM, err := generate(hosts, now)
	if err != nil {
		return "", "", false, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", false, err
	}
	if err := writeFile(keyFile, keyPEM, 0o600); err != nil {
		return "", "", false, err
	}
	if err := writeFile(certFile, certPEM, 0o644); err != nil {
		return "", "", false, err
	}
	return certFile, keyFile, true, nil
}

// Fingerprint is the SHA-256 of the certificate's DER form, in the
// colon-separated upper-case hex that browsers and openssl show.
func Fingerprint(c *x509.Certificate) string {
	sum := sha256.Sum256(c.Raw)
	h := strings.ToUpper(hex.EncodeToString(sum[:]))
	var b strings.Builder
	for i := 0; i < len(h); i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}

// generate makes the PEM certificate and key. The certificate is its own
// CA (basic constraints CA:TRUE, key usage certSign), so that clients can
// trust it directly as a CA bundle (curl --cacert, aws --ca-bundle), which
// OpenSSL's strict verification accepts only for a CA certificate.
func generate(hosts []string, now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"ObjectGateway"}, CommonName: "ObjectGateway self-signed"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(selfSignedLifetime),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	seen := map[string]bool{}
	for _, h := range append([]string{"localhost", "127.0.0.1", "::1"}, hosts...) {
		h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
		if h == "" || seen[h] {
			continue
		}
		seen[h] = true
		if ip := net.ParseIP(h); ip != nil {
			if !ip.IsUnspecified() {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			}
			continue
		}
		tmpl.DNSNames = append(tmpl.DNSNames, h)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), nil
}

// writeFile writes data to path by way of a temporary file in the same
// directory, synced and renamed over path.
func writeFile(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = f.Chmod(mode)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("tlsreload: writing %s: %w", path, err)
	}
	return nil
}
