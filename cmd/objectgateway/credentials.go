package main

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// credentialsFile is the file, in the state directory, that keeps the
// generated root credentials across restarts.
const credentialsFile = "credentials.json"

// credentials are the root user's access key pair.
type credentials struct {
	Access string `json:"access_key"`
	Secret string `json:"secret_key"`
}

// SecretKey implements sigv4.Credentials for the single root user.
func (c credentials) SecretKey(accessKey string) (string, bool) {
	if accessKey != c.Access {
		return "", false
	}
	return c.Secret, true
}

// loadCredentials returns the root credentials: from the environment when
// both variables are set, else from the state directory, else newly
// generated, stored 0600, and reported as created so the caller prints
// them once.
func loadCredentials(getenv func(string) string, path string) (c credentials, created bool, err error) {
	ak, sk := getenv("OBJECTGATEWAY_ACCESS_KEY"), getenv("OBJECTGATEWAY_SECRET_KEY")
	switch {
	case ak != "" && sk != "":
		return credentials{ak, sk}, false, nil
	case ak != "" || sk != "":
		return c, false, errors.New("set both OBJECTGATEWAY_ACCESS_KEY and OBJECTGATEWAY_SECRET_KEY, or neither")
	}
	data, err := os.ReadFile(path)
	if err == nil {
		if err := json.Unmarshal(data, &c); err != nil || c.Access == "" || c.Secret == "" {
			return c, false, fmt.Errorf("%s is damaged; remove it to generate new credentials", path)
		}
		return c, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return c, false, err
	}
	c = credentials{Access: randomString(20, upperAlnum), Secret: randomString(40, secretChars)}
	data, _ = json.MarshalIndent(c, "", "  ")
	if err := writeFileAtomic(path, append(data, '\n'), 0o600); err != nil {
		return c, false, err
	}
	return c, true, nil
}

const (
	upperAlnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	secretChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
)

// randomString draws n characters uniformly from alphabet (len ≤ 256).
func randomString(n int, alphabet string) string {
	out := make([]byte, 0, n)
	limit := 256 - 256%len(alphabet)
	var b [1]byte
	for len(out) < n {
		if _, err := rand.Read(b[:]); err != nil {
			panic(err) // crypto/rand never fails on Linux
		}
		if int(b[0]) < limit {
			out = append(out, alphabet[int(b[0])%len(alphabet)])
		}
	}
	return string(out)
}

// writeFileAtomic writes a small file durably: temp file, fsync, rename.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
