package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"syscall"
	"time"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/storage"
)

// controlTimeout bounds one control request; each is one short index
// transaction in the gateway.
const controlTimeout = 30 * time.Second

// controlClient is adminOps through the control socket of a running
// gateway.
type controlClient struct {
	http    *http.Client
	release func()
}

// dialControl connects to the control socket of the gateway serving
// root. It returns ok false, and no error, when no gateway serves it:
// there is no socket, or nothing accepts on it (a gateway was killed).
// Any other failure, such as a socket the caller may not connect to, is
// an error: the index is then locked by a gateway the caller cannot
// reach, and working on it directly would fail too.
//
// On a root that gateways share (each with its own socket, see
// controlSocketFile) it connects to one that answers, this host's first.
func dialControl(root string) (c *controlClient, ok bool, err error) {
	dir := filepath.Join(root, storage.StateDir)
	c, ok, err = dialControlAt(filepath.Join(dir, controlSocketFile))
	if ok || err != nil {
		return c, ok, err
	}
	mine, _ := filepath.Glob(filepath.Join(dir, controlSocketPrefix+hostName()+"-*.sock"))
	for _, path := range mine {
		if c, ok, err := dialControlAt(path); ok {
			return c, true, nil
		} else if err != nil {
			return nil, false, err
		}
	}
	return nil, false, nil
}

// dialControlAt connects to the control socket at path (dialControl).
func dialControlAt(path string) (c *controlClient, ok bool, err error) {
	root := filepath.Dir(filepath.Dir(path))
	addr, release, err := socketAddr(path)
	if err != nil {
		if errors.Is(err, iofs.ErrNotExist) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("control socket %s: %w", path, err)
	}
	conn, err := net.Dial("unix", addr)
	if err != nil {
		release()
		if errors.Is(err, iofs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("a gateway serves %s but its control socket refused this connection: %w", root, err)
	}
	conn.Close()
	var d net.Dialer
	return &controlClient{
		http: &http.Client{
			Timeout: controlTimeout,
			Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return d.DialContext(ctx, "unix", addr)
			}},
		},
		release: release,
	}, true, nil
}

func (c *controlClient) close() {
	c.http.CloseIdleConnections()
	c.release()
}

// remoteError is a control request's error as the gateway rendered it;
// it unwraps to the object layer's error of the same code, so callers
// tell the cases apart as they do for a local change.
type remoteError struct{ controlError }

func (e remoteError) Error() string { return e.Message }

func (e remoteError) Unwrap() error {
	switch e.Code {
	case "NoSuchUser":
		return object.ErrNoSuchUser
	case "UserExists":
		return object.ErrUserExists
	case "NoSuchUserPolicy":
		return object.ErrNoUserPolicy
	case "MalformedPolicy":
		return errMalformedPolicy
	case "NoSuchBucket":
		return s3err.New(s3err.NoSuchBucket)
	case "BadRequest":
		return errBadControlRequest
	}
	return nil
}

// do sends one control request, with in (when not nil) as its JSON body,
// and decodes the answer into out.
func (c *controlClient) do(method, path string, in, out any) error {
	var body bytes.Buffer
	if in != nil {
		if err := json.NewEncoder(&body).Encode(in); err != nil {
			return err
		}
	}
	req, err := http.NewRequest(method, "http://gateway"+path, &body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 64<<20))
	if resp.StatusCode >= 300 {
		var e controlError
		if err := dec.Decode(&e); err != nil || e.Code == "" {
			return fmt.Errorf("control socket: %s", resp.Status)
		}
		return remoteError{e}
	}
	if out == nil {
		return nil
	}
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("control socket: reading the answer: %w", err)
	}
	return nil
}

func userPath(accessKey, action string) string {
	p := "/users/" + url.PathEscape(accessKey)
	if action != "" {
		p += "/" + action
	}
	return p
}

func (c *controlClient) ListUsers() ([]object.User, error) {
	var docs []userDoc
	if err := c.do(http.MethodGet, "/users", nil, &docs); err != nil {
		return nil, err
	}
	users := make([]object.User, len(docs))
	for i, d := range docs {
		users[i] = d.user()
	}
	return users, nil
}

func (c *controlClient) AddUser(in object.AddUserInput) (object.User, string, error) {
	doc := addUserDoc{Name: in.Name, AccessKey: in.AccessKey, Email: in.Email}
	if in.POSIX != nil {
		uid, gid := in.POSIX.UID, in.POSIX.GID
		doc.UID, doc.GID = &uid, &gid
	}
	var out userDoc
	if err := c.do(http.MethodPost, "/users", doc, &out); err != nil {
		return object.User{}, "", err
	}
	return out.user(), out.SecretKey, nil
}

func (c *controlClient) RemoveUser(accessKey string) error {
	return c.do(http.MethodDelete, userPath(accessKey, ""), nil, nil)
}

func (c *controlClient) RotateUser(accessKey string) (string, error) {
	var out userDoc
	if err := c.do(http.MethodPost, userPath(accessKey, "rotate"), nil, &out); err != nil {
		return "", err
	}
	return out.SecretKey, nil
}

func (c *controlClient) DisableUser(accessKey string) error {
	return c.do(http.MethodPost, userPath(accessKey, "disable"), nil, nil)
}

func (c *controlClient) EnableUser(accessKey string) error {
	return c.do(http.MethodPost, userPath(accessKey, "enable"), nil, nil)
}

func (c *controlClient) UserPolicy(accessKey string) (string, error) {
	var out userPolicyDoc
	if err := c.do(http.MethodGet, userPath(accessKey, "policy"), nil, &out); err != nil {
		return "", err
	}
	return out.Policy, nil
}

func (c *controlClient) SetUserPolicy(accessKey, doc string) error {
	if doc == "" {
		return c.do(http.MethodDelete, userPath(accessKey, "policy"), nil, nil)
	}
	return c.do(http.MethodPut, userPath(accessKey, "policy"), userPolicyDoc{Policy: doc}, nil)
}

func bucketPath(bucket string) string {
	return "/buckets/" + url.PathEscape(bucket) + "/cache-control"
}

func (c *controlClient) BucketCacheControl(bucket string) (string, error) {
	var out cacheControlDoc
	err := c.do(http.MethodGet, bucketPath(bucket), nil, &out)
	return out.CacheControl, err
}

func (c *controlClient) SetBucketCacheControl(bucket, value string) error {
	if value == "" {
		return c.do(http.MethodDelete, bucketPath(bucket), nil, nil)
	}
	return c.do(http.MethodPut, bucketPath(bucket), cacheControlDoc{CacheControl: value}, nil)
}

// openAdmin returns the adminOps for root: through the control socket of
// a gateway serving it, else on its catalogue directly — the shared one
// of index, which gateways may be using meanwhile, or the root's bbolt
// index, which fails with a clear error while something else holds it.
// done releases what it opened.
func openAdmin(root, index string, getenv func(string) string) (ops adminOps, done func(), err error) {
	client, ok, err := dialControl(root)
	if err != nil {
		return nil, nil, err
	}
	if ok {
		return client, client.close, nil
	}
	var layer *object.Layer
	if index != "" {
		layer, err = object.Open(object.Options{Root: root, Index: index})
	} else {
		layer, err = openOffline(root)
	}
	if err != nil {
		return nil, nil, err
	}
	users := layer.Users(object.UsersOptions{Root: object.RootUser{AccessKey: rootAccessKey(getenv, layer.StatePath(credentialsFile))}})
	return localOps{layer: layer, users: users}, func() { layer.Close() }, nil
}
