package main

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rs/zerolog"
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

// Where the root credentials come from (credentialSource.from).
const (
	fromEnvironment = "environment"
	fromFile        = "file"
	fromGenerated   = "generated"
)

// credentialSource says where loadCredentials found the root credentials,
// for the start-up log.
type credentialSource struct {
	// from is fromEnvironment, fromFile or fromGenerated (newly
	// generated and stored in path, to be printed once).
	from string
	// path is the credentials file.
	path string
	// shadowed, with the environment, is what the credentials file holds
	// when it exists and differs from the environment ("damaged" when it
	// cannot be read); it stays as it is, unused.
	shadowed string
}

// loadCredentials returns the root credentials: from the environment when
// both variables are set, else from the state directory, else newly
// generated and stored 0600. The file is only ever written when it does
// not exist: credentials from the environment never replace it.
func loadCredentials(getenv func(string) string, path string) (credentials, credentialSource, error) {
	src := credentialSource{path: path}
	ak, sk := getenv("OBJECTGATEWAY_ACCESS_KEY"), getenv("OBJECTGATEWAY_SECRET_KEY")
	switch {
	case ak != "" && sk != "":
		src.from = fromEnvironment
		stored, err := readCredentials(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			src.shadowed = "damaged"
		case stored != (credentials{ak, sk}):
			src.shadowed = stored.Access
		}
		return credentials{ak, sk}, src, nil
	case ak != "" || sk != "":
		return credentials{}, src, errors.New("set both OBJECTGATEWAY_ACCESS_KEY and OBJECTGATEWAY_SECRET_KEY, or neither")
	}
	c, err := readCredentials(path)
	if err == nil {
		src.from = fromFile
		return c, src, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return c, src, err
	}
	c = credentials{Access: randomString(20, upperAlnum), Secret: randomString(40, secretChars)}
	data, _ := json.MarshalIndent(c, "", "  ")
	err = createFileAtomic(path, append(data, '\n'), 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Another gateway starting on the same root made them first:
		// every gateway of the root must answer to the same ones.
		c, err = readCredentials(path)
		src.from = fromFile
		return c, src, err
	}
	if err != nil {
		return c, src, err
	}
	src.from = fromGenerated
	return c, src, nil
}

// readCredentials reads the credentials file; a missing file is
// fs.ErrNotExist.
func readCredentials(path string) (credentials, error) {
	var c credentials
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(data, &c); err != nil || c.Access == "" || c.Secret == "" {
		return credentials{}, fmt.Errorf("%s is damaged; remove it to generate new credentials", path)
	}
	return c, nil
}

// log writes the start-up line saying which root credentials are in use,
// never the secret: the environment or the file (and its path), with a
// warning when the environment overrides a file that says otherwise.
func (src credentialSource) log(log zerolog.Logger, access string) {
	switch {
	case src.from == fromEnvironment && src.shadowed != "":
		log.Warn().Str("credentials", src.from).Str("access_key", access).
			Str("file", src.path).Str("file_access_key", src.shadowed).
			Msg("root credentials: OBJECTGATEWAY_ACCESS_KEY and OBJECTGATEWAY_SECRET_KEY differ from the credentials file; the environment wins and the file is left unchanged")
	case src.from == fromEnvironment:
		log.Info().Str("credentials", src.from).Str("access_key", access).
			Msg("root credentials from OBJECTGATEWAY_ACCESS_KEY and OBJECTGATEWAY_SECRET_KEY")
	default:
		log.Info().Str("credentials", fromFile).Str("access_key", access).Str("file", src.path).
			Msg("root credentials from the credentials file")
	}
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

// createFileAtomic writes a small file that does not exist yet, durably:
// temp file, fsync, link to its name. The link fails with fs.ErrExist
// when the file exists, so of processes creating it at once one wins and
// none replaces what another may already have handed out.
func createFileAtomic(path string, data []byte, perm os.FileMode) error {
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
	if err := os.Link(tmp.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
