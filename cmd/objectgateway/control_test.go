package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/storage"
)

const (
	controlRootAccess = "ROOTCONTROLTEST"
	controlRootSecret = "root-secret-for-control-tests"
)

// startControlGateway serves root with a fixed root user, its log going
// to logw. It returns once the S3 listener and the control socket accept.
func startControlGateway(t *testing.T, root string, logw io.Writer) *served {
	t.Helper()
	return startServe(t, []string{"--root", root, "--listen", "127.0.0.1:0", "--fsync=false"}, map[string]string{
		"OBJECTGATEWAY_ACCESS_KEY": controlRootAccess,
		"OBJECTGATEWAY_SECRET_KEY": controlRootSecret,
	}, logw)
}

func controlSocketPath(root string) string {
	return filepath.Join(root, storage.StateDir, controlSocketFile)
}

// s3Code returns the S3 error code of an SDK call's error ("" for none).
func s3Code(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("not an S3 error answer: %v", err)
	}
	return apiErr.ErrorCode()
}

// TestUserCommandsWhileServing changes users with `objectgateway user`
// while a gateway serves the root: each change goes through the control
// socket and is in force from the user's next request, with no cache
// letting a disabled, rotated or removed credential through.
func TestUserCommandsWhileServing(t *testing.T) {
	root := t.TempDir()
	var logs syncBuffer
	g := startControlGateway(t, root, &logs)
	ctx := context.Background()
	listBuckets := func(ak, sk string) error {
		_, err := s3Client(g.addr, ak, sk).ListBuckets(ctx, &s3.ListBucketsInput{})
		return err
	}

	out, err := runUser(t, root, "add", "dave", "--access-key", "AKIDDAVE", "--uid", "1200", "--gid", "1201")
	if err != nil {
		t.Fatalf("user add while serving: %v", err)
	}
	m := secretLine.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "Added user dave") || !strings.Contains(out, "AKIDDAVE") {
		t.Fatalf("user add printed %q", out)
	}
	secret := m[1]
	if err := listBuckets("AKIDDAVE", secret); err != nil {
		t.Fatalf("the new user's first request: %v", err)
	}
	if _, err := runUser(t, root, "add", "--access-key", "AKIDDAVE"); !errors.Is(err, object.ErrUserExists) {
		t.Errorf("adding a taken access key through the gateway: %v, want ErrUserExists", err)
	}
	if out, err := runUser(t, root, "list"); err != nil || !strings.Contains(out, "AKIDDAVE") || !strings.Contains(out, "1200:1201") ||
		!strings.Contains(out, "enabled") || strings.Contains(out, secret) {
		t.Fatalf("user list while serving: %q, %v", out, err)
	}

	if out, err := runUser(t, root, "disable", "AKIDDAVE"); err != nil || !strings.Contains(out, "User AKIDDAVE disabled.") {
		t.Fatalf("user disable: %q, %v", out, err)
	}
	if code := s3Code(t, listBuckets("AKIDDAVE", secret)); code != "InvalidAccessKeyId" {
		t.Errorf("a disabled user's next request: %q, want InvalidAccessKeyId", code)
	}
	if out, _ := runUser(t, root, "list"); !strings.Contains(out, "disabled") {
		t.Errorf("user list after disable: %q", out)
	}
	if _, err := runUser(t, root, "enable", "AKIDDAVE"); err != nil {
		t.Fatal(err)
	}
	if err := listBuckets("AKIDDAVE", secret); err != nil {
		t.Errorf("a re-enabled user's next request: %v", err)
	}

	out, err = runUser(t, root, "rotate", "AKIDDAVE")
	if err != nil {
		t.Fatal(err)
	}
	m = secretLine.FindStringSubmatch(out)
	if m == nil || m[1] == secret || !strings.Contains(out, "the old one no longer works") {
		t.Fatalf("user rotate printed %q", out)
	}
	rotated := m[1]
	if code := s3Code(t, listBuckets("AKIDDAVE", secret)); code != "SignatureDoesNotMatch" {
		t.Errorf("the old secret after rotate: %q, want SignatureDoesNotMatch", code)
	}
	if err := listBuckets("AKIDDAVE", rotated); err != nil {
		t.Errorf("the rotated secret: %v", err)
	}

	if out, err := runUser(t, root, "remove", "AKIDDAVE"); err != nil || !strings.Contains(out, "Removed user AKIDDAVE") {
		t.Fatalf("user remove: %q, %v", out, err)
	}
	if code := s3Code(t, listBuckets("AKIDDAVE", rotated)); code != "InvalidAccessKeyId" {
		t.Errorf("a removed user's next request: %q, want InvalidAccessKeyId", code)
	}
	if _, err := runUser(t, root, "remove", "AKIDDAVE"); err == nil || err.Error() != "no user with access key AKIDDAVE" {
		t.Errorf("removing a missing user through the gateway: %v", err)
	}
	if err := listBuckets(controlRootAccess, controlRootSecret); err != nil {
		t.Errorf("the root user: %v", err)
	}

	g.stop()
	log := logs.String()
	for _, op := range []string{"AddUser", "DisableUser", "EnableUser", "RotateUser", "RemoveUser"} {
		if !strings.Contains(log, `"op":"`+op+`","access_key":"AKIDDAVE"`) {
			t.Errorf("no info line for %s in the gateway's log", op)
		}
	}
	if strings.Contains(log, secret) || strings.Contains(log, rotated) {
		t.Error("a secret reached the gateway's log")
	}
	// Stopped cleanly, the gateway removed its socket, and the commands
	// work on the index directly again.
	if _, err := os.Lstat(controlSocketPath(root)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("control socket after a clean shutdown: %v", err)
	}
	if out, err := runUser(t, root, "list"); err != nil || strings.Contains(out, "AKIDDAVE") {
		t.Errorf("user list with the gateway stopped: %q, %v", out, err)
	}
}

// TestBucketCacheControlWhileServing sets and clears a bucket's default
// Cache-Control with `objectgateway bucket` while the gateway serves: the
// next response carries the new default, although no bucket had one when
// the gateway started.
func TestBucketCacheControlWhileServing(t *testing.T) {
	root := t.TempDir()
	g := startCDNGateway(t, root)
	g.put(t, "a.txt", []byte("a"))
	ctx := context.Background()
	served := func() string {
		t.Helper()
		out, err := g.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(cdnBucket), Key: aws.String("a.txt")})
		if err != nil {
			t.Fatalf("HeadObject: %v", err)
		}
		return aws.ToString(out.CacheControl)
	}
	if got := served(); got != cdnMaxAge {
		t.Fatalf("before: Cache-Control %q, want the server's %q", got, cdnMaxAge)
	}
	const cc = "public, max-age=600"
	if out, err := runBucket(t, root, "cache-control", cdnBucket, cc); err != nil || !strings.Contains(out, "are now served with") {
		t.Fatalf("bucket cache-control while serving: %q, %v", out, err)
	}
	if got := served(); got != cc {
		t.Errorf("next request: Cache-Control %q, want the bucket's %q", got, cc)
	}
	if out, err := runBucket(t, root, "cache-control", cdnBucket); err != nil || out != cc+"\n" {
		t.Errorf("show while serving: %q, %v", out, err)
	}
	if _, err := runBucket(t, root, "cache-control", "missing", cc); err == nil || !strings.Contains(err.Error(), "bucket missing: ") {
		t.Errorf("a missing bucket through the gateway: %v", err)
	}
	if out, err := runBucket(t, root, "cache-control", cdnBucket, "--clear"); err != nil || !strings.Contains(out, "Removed the default") {
		t.Fatalf("--clear while serving: %q, %v", out, err)
	}
	if got := served(); got != cdnMaxAge {
		t.Errorf("after --clear: Cache-Control %q, want the server's %q", got, cdnMaxAge)
	}
	if out, err := runBucket(t, root, "cache-control", cdnBucket); err != nil || !strings.Contains(out, "no default") {
		t.Errorf("show after --clear: %q, %v", out, err)
	}
}

// unixClient is an HTTP client of the Unix socket at path, as
// `curl --unix-socket path` is.
func unixClient(t *testing.T, path string) *http.Client {
	t.Helper()
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// controlCall sends one raw control request and returns the status and
// the decoded JSON answer.
func controlCall(t *testing.T, c *http.Client, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, "http://gateway"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var doc map[string]any
	if len(data) > 0 && data[0] == '{' {
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, data)
		}
	}
	return resp.StatusCode, doc
}

// TestControlSocketRawHTTP drives the control socket with plain HTTP, as
// the curl examples of docs/users.md do, and checks its permissions.
func TestControlSocketRawHTTP(t *testing.T) {
	root := t.TempDir()
	g := startControlGateway(t, root, nil)
	sock := controlSocketPath(root)
	for path, want := range map[string]os.FileMode{sock: 0o600, filepath.Dir(sock): 0o700} {
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}
	c := unixClient(t, sock)

	status, doc := controlCall(t, c, "POST", "/users", `{"name":"erin","access_key":"AKIDERIN"}`)
	secret, _ := doc["secret_key"].(string)
	if status != http.StatusCreated || doc["access_key"] != "AKIDERIN" || len(secret) != 40 {
		t.Fatalf("POST /users: %d %v", status, doc)
	}
	if _, err := s3Client(g.addr, "AKIDERIN", secret).ListBuckets(context.Background(), &s3.ListBucketsInput{}); err != nil {
		t.Fatalf("a user added over raw HTTP: %v", err)
	}
	req, _ := http.NewRequest("GET", "http://gateway/users", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var list []userDoc
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || len(list) != 1 || list[0].AccessKey != "AKIDERIN" || list[0].Name != "erin" || list[0].SecretKey != "" {
		t.Fatalf("GET /users: %+v, %v", list, err)
	}

	status, doc = controlCall(t, c, "POST", "/users/AKIDERIN/rotate", "")
	if rotated, _ := doc["secret_key"].(string); status != http.StatusOK || rotated == "" || rotated == secret {
		t.Errorf("rotate: %d %v", status, doc)
	}
	if code := s3Code(t, func() error {
		_, err := s3Client(g.addr, "AKIDERIN", secret).ListBuckets(context.Background(), &s3.ListBucketsInput{})
		return err
	}()); code != "SignatureDoesNotMatch" {
		t.Errorf("old secret after a raw rotate: %q", code)
	}
	for _, c2 := range []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"POST", "/users/AKIDERIN/disable", "", http.StatusOK, ""},
		{"POST", "/users/AKIDERIN/enable", "", http.StatusOK, ""},
		{"POST", "/users", `{"access_key":"AKIDERIN"}`, http.StatusConflict, "UserExists"},
		{"POST", "/users", `{"uid":5}`, http.StatusBadRequest, "BadRequest"},
		{"POST", "/users", `{"secret_key":"chosen-by-caller"}`, http.StatusBadRequest, "BadRequest"},
		{"POST", "/users/NOSUCH/disable", "", http.StatusNotFound, "NoSuchUser"},
		{"GET", "/buckets/nosuch/cache-control", "", http.StatusNotFound, "NoSuchBucket"},
		{"PUT", "/buckets/nosuch/cache-control", `{"cache_control":"a\r\nX-Injected: 1"}`, http.StatusBadRequest, "BadRequest"},
		{"DELETE", "/users/AKIDERIN", "", http.StatusOK, ""},
		{"GET", "/users/AKIDERIN", "", http.StatusMethodNotAllowed, ""},
		{"DELETE", "/users/AKIDERIN", "", http.StatusNotFound, "NoSuchUser"},
	} {
		status, doc := controlCall(t, c, c2.method, c2.path, c2.body)
		if status != c2.status || (c2.code != "" && doc["code"] != c2.code) {
			t.Errorf("%s %s %s: %d %v, want %d %s", c2.method, c2.path, c2.body, status, doc, c2.status, c2.code)
		}
	}
	if s := fmt.Sprint(doc); strings.Contains(s, secret) {
		t.Error("an answer repeated a secret")
	}
}

// TestControlStaleSocket starts a gateway over the socket a killed one
// left behind (nothing accepts on it): the socket is replaced and
// answers. With no gateway, such a socket sends the commands to the index
// directly.
func TestControlStaleSocket(t *testing.T) {
	root := t.TempDir()
	sock := controlSocketPath(root)
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("the stale socket: %v", err)
	}
	if out, err := runUser(t, root, "add", "frank", "--access-key", "AKIDFRANK"); err != nil || !secretLine.MatchString(out) {
		t.Fatalf("user add beside a stale socket: %q, %v", out, err)
	}

	g := startControlGateway(t, root, nil)
	status, _ := controlCall(t, unixClient(t, sock), "POST", "/users/AKIDFRANK/disable", "")
	if status != http.StatusOK {
		t.Fatalf("disable through the replaced socket: %d", status)
	}
	g.stop()
	if out, err := runUser(t, root, "list"); err != nil || !strings.Contains(out, "disabled") {
		t.Errorf("list after the gateway stopped: %q, %v", out, err)
	}

	// A file that is not a socket is not taken for a stale one.
	if err := os.WriteFile(sock, []byte("not a socket"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = serve(context.Background(), []string{"--root", root, "--listen", "127.0.0.1:0"}, env{
		stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" },
	})
	if err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("serve over a file named like the socket: %v", err)
	}
}

func TestPeerAllowed(t *testing.T) {
	for _, c := range []struct {
		uid, self uint32
		want      bool
	}{
		{1000, 1000, true},
		{0, 1000, true},
		{0, 0, true},
		{1001, 1000, false},
		{1000, 0, false},
		{65534, 0, false},
	} {
		if got := peerAllowed(c.uid, c.self); got != c.want {
			t.Errorf("peerAllowed(%d, %d) = %v", c.uid, c.self, got)
		}
	}
}

// TestControlRefusesOtherPeers checks the peer check in front of every
// control operation: a request whose connection came from another uid,
// or whose peer is unknown, is answered 403 AccessDenied and changes
// nothing.
func TestControlRefusesOtherPeers(t *testing.T) {
	root := t.TempDir()
	layer, err := openOffline(root)
	if err != nil {
		t.Fatal(err)
	}
	defer layer.Close()
	var logs syncBuffer
	c := &control{ops: localOps{layer: layer, users: layer.Users(object.UsersOptions{})}, log: zerolog.New(&logs), self: 1000}
	h := c.routes()
	for _, peer := range []any{uint32(1001), nil} {
		req := httptest.NewRequest("POST", "/users", strings.NewReader(`{"access_key":"AKIDMALLORY"}`))
		if peer != nil {
			req = req.WithContext(context.WithValue(req.Context(), peerKey{}, peer))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), `"AccessDenied"`) {
			t.Errorf("peer %v: %d %s", peer, rec.Code, rec.Body)
		}
	}
	if users, err := c.ops.ListUsers(); err != nil || len(users) != 0 {
		t.Errorf("a refused peer changed the users: %v, %v", users, err)
	}
	for _, peer := range []uint32{1000, 0} {
		req := httptest.NewRequest("GET", "/users", nil)
		req = req.WithContext(context.WithValue(req.Context(), peerKey{}, peer))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Errorf("peer %d: %d %s", peer, rec.Code, rec.Body)
		}
	}
	if !strings.Contains(logs.String(), "peer refused") {
		t.Error("refused peers are not logged")
	}
}

// peerChildEnv, when set, makes TestControlPeerChild connect to the
// socket it names and print what happened; it is set only in the
// subprocess TestControlPeerOtherUID starts as another uid.
const peerChildEnv = "OBJECTGATEWAY_TEST_CONTROL_PEER"

func TestControlPeerChild(t *testing.T) {
	sock := os.Getenv(peerChildEnv)
	if sock == "" {
		t.Skip("run by TestControlPeerOtherUID only")
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		fmt.Printf("RESULT dial %v\n", errors.Is(err, syscall.EACCES))
		return
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /users HTTP/1.1\r\nHost: gateway\r\nConnection: close\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		fmt.Printf("RESULT read %v\n", err)
		return
	}
	resp.Body.Close()
	fmt.Printf("RESULT status %d\n", resp.StatusCode)
}

// TestControlPeerOtherUID runs a client as the unprivileged uid 65534
// against a serving gateway (only possible as root): with the socket's
// own permissions it cannot connect at all, and with permissions an
// operator loosened by mistake it connects but the SO_PEERCRED check
// answers 403.
func TestControlPeerOtherUID(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another uid")
	}
	// A tree the other uid can traverse, with a copy of this test
	// binary it can execute.
	base := t.TempDir()
	for d := base; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "control.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	startControlGateway(t, root, nil)
	sock := controlSocketPath(root)
	child := func() string {
		t.Helper()
		cmd := exec.Command(bin, "-test.run=^TestControlPeerChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), peerChildEnv+"="+sock)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if r, ok := strings.CutPrefix(line, "RESULT "); ok {
				return r
			}
		}
		t.Fatalf("child printed no result:\n%s", out)
		return ""
	}
	if got := child(); got != "dial true" {
		t.Errorf("another uid with the socket's own permissions: %q, want permission denied", got)
	}
	if err := os.Chmod(filepath.Dir(sock), 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	if got := child(); got != "status 403" {
		t.Errorf("another uid through loosened permissions: %q, want status 403", got)
	}
}
