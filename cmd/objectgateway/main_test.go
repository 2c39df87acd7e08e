package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestParseConfigEnvAndFlags(t *testing.T) {
	env := map[string]string{
		"OBJECTGATEWAY_ROOT":       "/srv/s3",
		"OBJECTGATEWAY_LISTEN":     "127.0.0.1:1",
		"OBJECTGATEWAY_LOG_FORMAT": "console",
		"OBJECTGATEWAY_FSYNC":      "false",
	}
	c, err := parseConfig([]string{"--listen", "127.0.0.1:2"}, io.Discard, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.root != "/srv/s3" || c.listen != "127.0.0.1:2" || c.logFormat != "console" || c.fsync || c.region != "us-east-1" {
		t.Fatalf("config %+v: the flag must win over the environment, the environment over defaults", c)
	}
	if _, err := parseConfig([]string{"--log-format", "xml"}, io.Discard, func(string) string { return "" }); err == nil {
		t.Fatal("an unknown log format must be refused")
	}
	if _, err := parseConfig(nil, io.Discard, func(k string) string {
		if k == "OBJECTGATEWAY_FSYNC" {
			return "maybe"
		}
		return ""
	}); err == nil {
		t.Fatal("a malformed environment value must be refused")
	}
}

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeGeneratesCredentialsAndShutsDown starts the real serve command on
// a free port, checks that generated credentials are printed once and stored
// 0600, that an anonymous request gets S3's AccessDenied with a request id,
// and that cancelling the context stops the server cleanly.
func TestServeGeneratesCredentialsAndShutsDown(t *testing.T) {
	root := filepath.Join(t.TempDir(), "data")
	for round := 0; round < 2; round++ {
		var stdout, stderr syncBuffer
		ctx, cancel := context.WithCancel(context.Background())
		addrc := make(chan string, 1)
		done := make(chan error, 1)
		go func() {
			done <- serve(ctx, []string{"--root", root, "--listen", "127.0.0.1:0"}, env{
				stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" },
				ready: func(a string) { addrc <- a },
			})
		}()
		var addr string
		select {
		case addr = <-addrc:
		case err := <-done:
			t.Fatalf("serve exited early: %v\n%s", err, stderr.String())
		}
		resp, err := http.Get("http://" + addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "<Code>AccessDenied</Code>") || resp.Header.Get("X-Amz-Request-Id") == "" {
			t.Fatalf("anonymous GET /: %d %s %v", resp.StatusCode, body, resp.Header)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("serve returned %v after shutdown", err)
		}

		credPath := filepath.Join(root, ".objectgateway", credentialsFile)
		fi, err := os.Stat(credPath)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("credentials file mode %v, want 0600", fi.Mode().Perm())
		}
		data, _ := os.ReadFile(credPath)
		var c credentials
		if err := json.Unmarshal(data, &c); err != nil || len(c.Access) != 20 || len(c.Secret) != 40 {
			t.Fatalf("stored credentials %q: %v", data, err)
		}
		printed := strings.Contains(stdout.String(), c.Secret)
		if round == 0 && !printed {
			t.Fatalf("first start must print the generated secret; stdout: %q", stdout.String())
		}
		if round == 1 && printed {
			t.Fatal("the secret must be printed once, not on every start")
		}
		if strings.Contains(stderr.String(), c.Secret) {
			t.Fatal("the secret key must never reach the log")
		}
	}
}

func TestCredentialsFromEnvironment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	env := map[string]string{"OBJECTGATEWAY_ACCESS_KEY": "AK", "OBJECTGATEWAY_SECRET_KEY": "SK"}
	c, src, err := loadCredentials(func(k string) string { return env[k] }, path)
	if err != nil || src.from != fromEnvironment || c.Access != "AK" || c.Secret != "SK" {
		t.Fatalf("got %+v from %s, err=%v", c, src.from, err)
	}
	if sk, ok := c.SecretKey("AK"); !ok || sk != "SK" {
		t.Fatal("SecretKey must resolve the configured key")
	}
	if _, ok := c.SecretKey("other"); ok {
		t.Fatal("SecretKey must refuse other keys")
	}
	delete(env, "OBJECTGATEWAY_SECRET_KEY")
	if _, _, err := loadCredentials(func(k string) string { return env[k] }, path); err == nil {
		t.Fatal("only one of the two variables set must be an error")
	}
}

func TestVersionCommand(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"version"}, &out, io.Discard); err != nil || !strings.HasPrefix(out.String(), "objectgateway ") {
		t.Fatalf("version: %q %v", out.String(), err)
	}
	if err := run(context.Background(), []string{"nonsense"}, io.Discard, io.Discard); err == nil {
		t.Fatal("an unknown command must fail")
	}
}
