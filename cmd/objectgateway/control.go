package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/policy"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// controlSocketFile is the name, in the state directory, of the Unix
// socket a running gateway takes user and bucket changes on (see
// docs/users.md). Requests are plain HTTP with JSON bodies.
//
// Gateways sharing a root and a catalogue (--index) each have their own,
// controlSocketPrefix then the host name and the process id and ".sock":
// any of them applies a change to the shared catalogue, where the others
// see it.
const (
	controlSocketFile   = "control.sock"
	controlSocketPrefix = "control-"
)

// controlSocketName is the name of this gateway's control socket.
func controlSocketName(shared bool) string {
	if !shared {
		return controlSocketFile
	}
	return fmt.Sprintf("%s%s-%d.sock", controlSocketPrefix, hostName(), os.Getpid())
}

// hostName is the host's name as a file name may hold it.
func hostName() string {
	h, err := os.Hostname()
	if err != nil || h == "" || strings.ContainsAny(h, "/\x00") {
		return "localhost"
	}
	return h
}

// controlBodyLimit bounds a control request's body; the largest is a
// user's identity policy (policy.MaxSize bytes, up to six times that once
// escaped as a JSON string).
const controlBodyLimit = 6*policy.MaxSize + 4<<10

var (
	// errBadControlRequest is wrapped by the errors of a control request
	// whose body or arguments are malformed.
	errBadControlRequest = errors.New("bad request")
	// errPeerRefused is returned for a connection whose peer runs as
	// neither the gateway's uid nor root.
	errPeerRefused = errors.New("the control socket answers only the gateway's user and root")
)

// control is the control socket of a serving gateway: it applies
// adminOps to the gateway's own layer and Users, so that a change is in
// force from the next S3 request on, and logs every change.
type control struct {
	ops  localOps
	log  zerolog.Logger
	self uint32 // the gateway's uid
	path string
	srv  *http.Server
}

// peerKey is the context key of a control connection's peer uid.
type peerKey struct{}

// startControl listens on the control socket of the layer's state
// directory and serves it in the background until close. A socket left by
// a gateway that was killed (nothing accepts on it) is replaced; one that
// answers, or a file of that name that is no socket, is an error.
func startControl(layer *object.Layer, users *object.Users, log zerolog.Logger) (*control, error) {
	c := &control{ops: localOps{layer: layer, users: users}, log: log, self: uint32(os.Getuid()), path: layer.StatePath(controlSocketName(layer.SharedIndex()))}
	// The state directory is the socket's first fence: only the
	// gateway's user (and root) may enter it.
	// A state directory the gateway does not own (made by root for a
	// group, say) is left as it is, with a warning: the socket's own mode
	// and the peer check still hold.
	if err := os.Chmod(filepath.Dir(c.path), 0o700); err != nil {
		log.Warn().Err(err).Str("dir", filepath.Dir(c.path)).Msg("control socket: the state directory could not be made private; the socket's mode (0600) and the peer check protect it")
	}
	if layer.SharedIndex() {
		removeStaleSockets(filepath.Dir(c.path))
	}
	ln, err := listenControl(c.path)
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	c.srv = &http.Server{
		Handler:           c.routes(),
		ReadHeaderTimeout: 10 * time.Second,
		ConnContext: func(ctx context.Context, conn net.Conn) context.Context {
			uid, err := peerUID(conn)
			if err != nil {
				return ctx // no peer uid: refused in ServeHTTP
			}
			return context.WithValue(ctx, peerKey{}, uid)
		},
	}
	go c.srv.Serve(ln)
	log.Info().Str("control_socket", c.path).Msg("control socket: user and bucket changes (docs/users.md)")
	return c, nil
}

// close stops the control socket, letting changes under way finish, and
// removes it.
func (c *control) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.srv.Shutdown(ctx); err != nil {
		c.srv.Close()
	}
	if err := os.Remove(c.path); err != nil && !errors.Is(err, iofs.ErrNotExist) {
		c.log.Error().Err(err).Msg("removing the control socket")
	}
}

// listenControl listens on the Unix socket at path, mode 0600, replacing a
// stale one.
func listenControl(path string) (net.Listener, error) {
	addr, release, err := socketAddr(path)
	if err != nil {
		return nil, err
	}
	defer release()
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&iofs.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket", path)
		}
		if conn, err := net.Dial("unix", addr); err == nil {
			conn.Close()
			return nil, fmt.Errorf("another process answers on %s", path)
		}
		// Nothing accepts on it: a gateway was killed before it could
		// remove its socket.
		if err := os.Remove(path); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("unix", addr)
	if err != nil {
		return nil, err
	}
	// close removes the socket by its real path; addr may be a
	// /proc/self/fd name that is gone by then.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		os.Remove(path)
		return nil, err
	}
	return ln, nil
}

// removeStaleSockets removes the control sockets of this host's gateways
// that were killed before they could remove their own (nothing accepts
// on them). Sockets of other hosts, on a shared filesystem, cannot be
// tried from here and are left to their own hosts.
func removeStaleSockets(dir string) {
	names, _ := filepath.Glob(filepath.Join(dir, controlSocketPrefix+hostName()+"-*.sock"))
	for _, path := range names {
		addr, release, err := socketAddr(path)
		if err != nil {
			continue
		}
		conn, err := net.Dial("unix", addr)
		if err == nil {
			conn.Close()
		} else if errors.Is(err, syscall.ECONNREFUSED) {
			os.Remove(path)
		}
		release()
	}
}

// maxSocketPath is the longest path a Unix socket address can hold
// (sun_path is 108 bytes with its terminating NUL).
const maxSocketPath = 107

// socketAddr returns the address to bind or dial for the socket at path.
// A path too long for a socket address is reached through an open
// descriptor of its directory (/proc/self/fd/N/NAME), held until release.
func socketAddr(path string) (addr string, release func(), err error) {
	if len(path) <= maxSocketPath {
		return path, func() {}, nil
	}
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return "", nil, err
	}
	addr = fmt.Sprintf("/proc/self/fd/%d/%s", dir.Fd(), filepath.Base(path))
	if len(addr) > maxSocketPath {
		dir.Close()
		return "", nil, fmt.Errorf("%s: socket name too long", path)
	}
	return addr, func() { dir.Close() }, nil
}

// peerUID returns the uid of the process at the other end of a Unix
// socket connection, as the kernel recorded it at connect (SO_PEERCRED).
func peerUID(conn net.Conn) (uint32, error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return 0, errors.New("not a Unix socket connection")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if cerr != nil {
		return 0, cerr
	}
	return cred.Uid, nil
}

// peerAllowed reports whether a peer running as uid may use the control
// socket of a gateway running as self: the same user, or root.
func peerAllowed(uid, self uint32) bool {
	return uid == self || uid == 0
}

// controlFunc is a control request handler: it returns the status and
// the JSON document of a success, or an error that renderControlError
// turns into the answer.
type controlFunc func(r *http.Request) (int, any, error)

func (c *control) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /users", c.handle(c.listUsers))
	mux.Handle("POST /users", c.handle(c.addUser))
	mux.Handle("DELETE /users/{accessKey}", c.handle(c.removeUser))
	mux.Handle("POST /users/{accessKey}/rotate", c.handle(c.rotateUser))
	mux.Handle("POST /users/{accessKey}/disable", c.handle(c.disableUser))
	mux.Handle("POST /users/{accessKey}/enable", c.handle(c.enableUser))
	mux.Handle("GET /users/{accessKey}/policy", c.handle(c.getUserPolicy))
	mux.Handle("PUT /users/{accessKey}/policy", c.handle(c.putUserPolicy))
	mux.Handle("DELETE /users/{accessKey}/policy", c.handle(c.deleteUserPolicy))
	mux.Handle("GET /buckets/{bucket}/cache-control", c.handle(c.getCacheControl))
	mux.Handle("PUT /buckets/{bucket}/cache-control", c.handle(c.putCacheControl))
	mux.Handle("DELETE /buckets/{bucket}/cache-control", c.handle(c.deleteCacheControl))
	return mux
}

// handle checks the peer, runs fn and renders its answer: the one place
// control answers, successes and errors, are written.
func (c *control) handle(fn controlFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, doc, err := http.StatusForbidden, any(nil), errPeerRefused
		if uid, ok := r.Context().Value(peerKey{}).(uint32); ok && peerAllowed(uid, c.self) {
			r.Body = http.MaxBytesReader(w, r.Body, controlBodyLimit)
			status, doc, err = fn(r)
		} else {
			c.log.Warn().Any("peer_uid", r.Context().Value(peerKey{})).Str("path", r.URL.Path).Msg("control socket: peer refused")
		}
		if err != nil {
			status, doc = renderControlError(err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(doc)
	})
}

// controlError is the JSON document of a failed control request. Code is
// stable (NoSuchUser, UserExists, NoSuchUserPolicy, MalformedPolicy,
// NoSuchBucket, BadRequest, AccessDenied, InternalError); Message is for
// people.
type controlError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// renderControlError maps an error to the status and document of its
// answer.
func renderControlError(err error) (int, controlError) {
	status, code := http.StatusInternalServerError, "InternalError"
	switch {
	case errors.Is(err, errPeerRefused):
		status, code = http.StatusForbidden, "AccessDenied"
	case errors.Is(err, object.ErrNoSuchUser):
		status, code = http.StatusNotFound, "NoSuchUser"
	case errors.Is(err, object.ErrUserExists):
		status, code = http.StatusConflict, "UserExists"
	case errors.Is(err, object.ErrNoUserPolicy):
		status, code = http.StatusNotFound, "NoSuchUserPolicy"
	case errors.Is(err, errMalformedPolicy):
		status, code = http.StatusBadRequest, "MalformedPolicy"
	case errors.Is(err, errBadControlRequest):
		status, code = http.StatusBadRequest, "BadRequest"
	default:
		if e, ok := s3err.CodeOf(err); ok && e == s3err.NoSuchBucket {
			status, code = http.StatusNotFound, "NoSuchBucket"
		}
	}
	return status, controlError{Code: code, Message: err.Error()}
}

// userDoc is a user as the control socket shows it: never with its
// secret, except SecretKey in the answer to an add or a rotation.
type userDoc struct {
	AccessKey string    `json:"access_key"`
	Name      string    `json:"name,omitempty"`
	Created   time.Time `json:"created,omitzero"`
	UID       *int      `json:"uid,omitempty"`
	GID       *int      `json:"gid,omitempty"`
	Disabled  bool      `json:"disabled"`
	Email     string    `json:"email,omitempty"`
	HasPolicy bool      `json:"has_policy,omitempty"`
	SecretKey string    `json:"secret_key,omitempty"`
}

func docOfUser(u object.User) userDoc {
	d := userDoc{AccessKey: u.AccessKey, Name: u.Name, Created: u.Created, Disabled: u.Disabled, Email: u.Email, HasPolicy: u.HasPolicy}
	if u.POSIX != nil {
		uid, gid := u.POSIX.UID, u.POSIX.GID
		d.UID, d.GID = &uid, &gid
	}
	return d
}

func (d userDoc) user() object.User {
	u := object.User{AccessKey: d.AccessKey, Name: d.Name, Created: d.Created, Disabled: d.Disabled, Email: d.Email, HasPolicy: d.HasPolicy}
	if d.UID != nil && d.GID != nil {
		u.POSIX = &object.POSIXOwner{UID: *d.UID, GID: *d.GID}
	}
	return u
}

// removedDoc is the answer to DELETE /users/{accessKey}.
type removedDoc struct {
	AccessKey string `json:"access_key"`
	Removed   bool   `json:"removed"`
}

// addUserDoc is the body of POST /users.
type addUserDoc struct {
	Name      string `json:"name,omitempty"`
	AccessKey string `json:"access_key,omitempty"`
	UID       *int   `json:"uid,omitempty"`
	GID       *int   `json:"gid,omitempty"`
	Email     string `json:"email,omitempty"`
}

// userPolicyDoc is the body of GET and PUT /users/{accessKey}/policy: the
// policy document as text, so that it comes back exactly as it was put.
type userPolicyDoc struct {
	AccessKey string `json:"access_key,omitempty"`
	Policy    string `json:"policy"`
}

// cacheControlDoc is the body of GET and PUT /buckets/{bucket}/cache-control.
type cacheControlDoc struct {
	CacheControl string `json:"cache_control"`
}

// decodeBody reads r's JSON body into v, refusing unknown fields.
func decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", errBadControlRequest, err)
	}
	return nil
}

func (c *control) listUsers(*http.Request) (int, any, error) {
	users, err := c.ops.ListUsers()
	if err != nil {
		return 0, nil, err
	}
	docs := make([]userDoc, len(users))
	for i, u := range users {
		docs[i] = docOfUser(u)
	}
	return http.StatusOK, docs, nil
}

func (c *control) addUser(r *http.Request) (int, any, error) {
	var in addUserDoc
	if err := decodeBody(r, &in); err != nil {
		return 0, nil, err
	}
	if (in.UID == nil) != (in.GID == nil) {
		return 0, nil, fmt.Errorf("%w: give both uid and gid, or neither", errBadControlRequest)
	}
	add := object.AddUserInput{Name: in.Name, AccessKey: in.AccessKey, Email: in.Email}
	if in.UID != nil {
		add.POSIX = &object.POSIXOwner{UID: *in.UID, GID: *in.GID}
	}
	u, secret, err := c.ops.AddUser(add)
	if err != nil {
		return 0, nil, err
	}
	ev := c.log.Info().Str("op", "AddUser").Str("access_key", u.AccessKey).Str("name", u.Name)
	if u.POSIX != nil {
		ev = ev.Int("uid", u.POSIX.UID).Int("gid", u.POSIX.GID)
	}
	ev.Msg("control: user added")
	d := docOfUser(u)
	d.SecretKey = secret
	return http.StatusCreated, d, nil
}

func (c *control) removeUser(r *http.Request) (int, any, error) {
	ak := r.PathValue("accessKey")
	if err := c.ops.RemoveUser(ak); err != nil {
		return 0, nil, err
	}
	c.log.Info().Str("op", "RemoveUser").Str("access_key", ak).Msg("control: user removed")
	return http.StatusOK, removedDoc{AccessKey: ak, Removed: true}, nil
}

func (c *control) rotateUser(r *http.Request) (int, any, error) {
	ak := r.PathValue("accessKey")
	secret, err := c.ops.RotateUser(ak)
	if err != nil {
		return 0, nil, err
	}
	c.log.Info().Str("op", "RotateUser").Str("access_key", ak).Msg("control: user secret rotated")
	return http.StatusOK, userDoc{AccessKey: ak, SecretKey: secret}, nil
}

func (c *control) disableUser(r *http.Request) (int, any, error) {
	ak := r.PathValue("accessKey")
	if err := c.ops.DisableUser(ak); err != nil {
		return 0, nil, err
	}
	c.log.Info().Str("op", "DisableUser").Str("access_key", ak).Msg("control: user disabled")
	return http.StatusOK, userDoc{AccessKey: ak, Disabled: true}, nil
}

func (c *control) enableUser(r *http.Request) (int, any, error) {
	ak := r.PathValue("accessKey")
	if err := c.ops.EnableUser(ak); err != nil {
		return 0, nil, err
	}
	c.log.Info().Str("op", "EnableUser").Str("access_key", ak).Msg("control: user enabled")
	return http.StatusOK, userDoc{AccessKey: ak}, nil
}

func (c *control) getUserPolicy(r *http.Request) (int, any, error) {
	ak := r.PathValue("accessKey")
	doc, err := c.ops.UserPolicy(ak)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, userPolicyDoc{AccessKey: ak, Policy: doc}, nil
}

func (c *control) putUserPolicy(r *http.Request) (int, any, error) {
	var in userPolicyDoc
	if err := decodeBody(r, &in); err != nil {
		return 0, nil, err
	}
	if in.Policy == "" {
		return 0, nil, fmt.Errorf("%w: an empty policy (DELETE removes it)", errBadControlRequest)
	}
	ak := r.PathValue("accessKey")
	if err := c.ops.SetUserPolicy(ak, in.Policy); err != nil {
		return 0, nil, err
	}
	c.log.Info().Str("op", "PutUserPolicy").Str("access_key", ak).Int("policy_bytes", len(in.Policy)).Msg("control: identity policy set")
	return http.StatusOK, userPolicyDoc{AccessKey: ak}, nil
}

func (c *control) deleteUserPolicy(r *http.Request) (int, any, error) {
	ak := r.PathValue("accessKey")
	if err := c.ops.SetUserPolicy(ak, ""); err != nil {
		return 0, nil, err
	}
	c.log.Info().Str("op", "DeleteUserPolicy").Str("access_key", ak).Msg("control: identity policy removed")
	return http.StatusOK, userPolicyDoc{AccessKey: ak}, nil
}

func (c *control) getCacheControl(r *http.Request) (int, any, error) {
	v, err := c.ops.BucketCacheControl(r.PathValue("bucket"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, cacheControlDoc{CacheControl: v}, nil
}

func (c *control) putCacheControl(r *http.Request) (int, any, error) {
	var in cacheControlDoc
	if err := decodeBody(r, &in); err != nil {
		return 0, nil, err
	}
	if in.CacheControl == "" {
		return 0, nil, fmt.Errorf("%w: an empty cache_control (DELETE removes it)", errBadControlRequest)
	}
	return c.setCacheControl(r.PathValue("bucket"), in.CacheControl)
}

func (c *control) deleteCacheControl(r *http.Request) (int, any, error) {
	return c.setCacheControl(r.PathValue("bucket"), "")
}

func (c *control) setCacheControl(bucket, value string) (int, any, error) {
	if err := c.ops.SetBucketCacheControl(bucket, value); err != nil {
		return 0, nil, err
	}
	op := "PutBucketCacheControl"
	if value == "" {
		op = "DeleteBucketCacheControl"
	}
	c.log.Info().Str("op", op).Str("bucket", bucket).Str("cache_control", value).Msg("control: bucket default Cache-Control changed")
	return http.StatusOK, cacheControlDoc{CacheControl: value}, nil
}
