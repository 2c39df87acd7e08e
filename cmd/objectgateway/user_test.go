package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// runUser runs `objectgateway user ARGS --root root` and returns stdout.
func runUser(t *testing.T, root string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := userCmd(append(args, "--root", root), env{stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }})
	return out.String(), err
}

var secretLine = regexp.MustCompile(`secret key: (\S+)`)

func TestUserCommands(t *testing.T) {
	root := t.TempDir()
	out, err := runUser(t, root, "add", "alice", "--access-key", "AKIDALICE", "--uid", "1000", "--gid", "1001")
	if err != nil {
		t.Fatalf("user add: %v", err)
	}
	m := secretLine.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "AKIDALICE") {
		t.Fatalf("user add printed %q", out)
	}
	secret := m[1]
	// Flags before the name work too, and the access key is generated.
	out, err = runUser(t, root, "add", "--uid", "5", "--gid", "6", "bob")
	if err != nil || !secretLine.MatchString(out) {
		t.Fatalf("user add bob: %q, %v", out, err)
	}

	out, err = runUser(t, root, "list")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "AKIDALICE") || !strings.Contains(out, "alice") || !strings.Contains(out, "1000:1001") ||
		!strings.Contains(out, "bob") || !strings.Contains(out, "5:6") {
		t.Errorf("user list: %q", out)
	}
	if strings.Contains(out, secret) {
		t.Fatal("user list printed a secret")
	}

	out, err = runUser(t, root, "rotate", "AKIDALICE")
	if err != nil {
		t.Fatal(err)
	}
	m = secretLine.FindStringSubmatch(out)
	if m == nil || m[1] == secret {
		t.Fatalf("user rotate printed %q", out)
	}
	rotated := m[1]

	// The stored user authenticates with the rotated secret only.
	l, err := object.Open(object.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	u := l.Users(object.UsersOptions{})
	if s, ok := u.SecretKey("AKIDALICE"); !ok || s != rotated {
		t.Errorf("after rotate SecretKey = %q, %v", s, ok)
	}
	if o, ok := u.FileOwner("AKIDALICE"); !ok || o.UID != 1000 || o.GID != 1001 {
		t.Errorf("FileOwner = %+v, %v", o, ok)
	}
	// While the index is held (a gateway serving the root), the command
	// fails with a clear error instead of hanging.
	_, err = runUser(t, root, "list")
	if err == nil || !strings.Contains(err.Error(), "gateway running") {
		t.Errorf("user list on a locked index: %v", err)
	}
	l.Close()

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"disable", "AKIDALICE"}, "disabled"},
		{[]string{"enable", "AKIDALICE"}, "enabled"},
		{[]string{"remove", "AKIDALICE"}, "Removed"},
	} {
		if out, err := runUser(t, root, c.args...); err != nil || !strings.Contains(out, c.want) {
			t.Errorf("user %v: %q, %v", c.args, out, err)
		}
	}
	if out, _ := runUser(t, root, "list"); strings.Contains(out, "AKIDALICE") {
		t.Errorf("list after remove: %q", out)
	}
	for _, bad := range [][]string{
		{"remove", "AKIDALICE"},         // no such user
		{"rotate"},                      // missing argument
		{"frobnicate"},                  // unknown command
		{"add", "--uid", "1"},           // uid without gid
		{"add", "--access-key", "a b"},  // invalid access key
		{"add", "x", "y"},               // two names
		{"list", "extra"},               // extra argument
		{"add", "--access-key", "AKID"}, // fine: checked below
	} {
		_, err := runUser(t, root, bad...)
		if bad[len(bad)-1] == "AKID" {
			if err != nil {
				t.Errorf("user %v: %v", bad, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("user %v succeeded", bad)
		}
	}
	if _, err := runUser(t, root, "add", "--access-key", "AKID"); err == nil {
		t.Error("adding a taken access key succeeded")
	}
	if out, err := runUser(t, root, "help"); err != nil || !strings.Contains(out, "rotate") {
		t.Errorf("user help: %q, %v", out, err)
	}
}

// TestUserAddThenServe adds a user with the CLI, then starts the real
// serve command and signs a request with the user's key pair: the user
// authenticates and lists only its (no) buckets.
func TestUserAddThenServe(t *testing.T) {
	root := t.TempDir()
	out, err := runUser(t, root, "add", "carol", "--access-key", "AKIDCAROL")
	if err != nil {
		t.Fatal(err)
	}
	secret := secretLine.FindStringSubmatch(out)[1]

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	var stderr syncBuffer
	go func() {
		done <- serve(ctx, []string{"--root", root, "--listen", "127.0.0.1:0"}, env{
			stdout: io.Discard, stderr: &stderr, getenv: func(string) string { return "" },
			ready: func(a string) { addrc <- a },
		})
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("serve exited early: %v\n%s", err, stderr.String())
	}
	get := func(ak, sk string) (int, string) {
		req, _ := http.NewRequest("GET", "http://"+addr+"/", nil)
		sigv4.SignRequest(req, ak, sk, "us-east-1", time.Now(), "UNSIGNED-PAYLOAD")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if status, body := get("AKIDCAROL", secret); status != 200 || !strings.Contains(body, "ListAllMyBucketsResult") {
		t.Errorf("ListBuckets as carol: %d %s", status, body)
	}
	if status, body := get("AKIDCAROL", "wrong-secret"); status != 403 || !strings.Contains(body, "SignatureDoesNotMatch") {
		t.Errorf("ListBuckets with a wrong secret: %d %s", status, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr.String(), secret) {
		t.Fatal("the user's secret reached the log")
	}
}
