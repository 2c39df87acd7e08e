package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// logLines returns the JSON log lines of log whose message contains msg.
func logLines(t *testing.T, log, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if s, _ := m["message"].(string); strings.Contains(s, msg) {
			out = append(out, m)
		}
	}
	return out
}

// TestStartupLogNamesCredentials starts the gateway three times on one
// root: without the environment (credentials generated into the file),
// again (read from the file, whose path the log names), and with
// OBJECTGATEWAY_ACCESS_KEY/SECRET_KEY that differ from the file: the log
// warns that the environment wins, and the file is left byte for byte as
// it was. No start logs a secret.
func TestStartupLogNamesCredentials(t *testing.T) {
	root := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(root, ".objectgateway", credentialsFile)
	args := []string{"--root", root, "--listen", "127.0.0.1:0"}

	var first syncBuffer
	startServe(t, args, nil, &first).stop()
	stored, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fileCreds credentials
	if err := json.Unmarshal(stored, &fileCreds); err != nil {
		t.Fatal(err)
	}

	var second syncBuffer
	startServe(t, args, nil, &second).stop()
	lines := logLines(t, second.String(), "root credentials")
	if len(lines) != 1 || lines[0]["credentials"] != "file" || lines[0]["file"] != path || lines[0]["access_key"] != fileCreds.Access || lines[0]["level"] != "info" {
		t.Errorf("start with the file: credentials lines %v; want one naming the file %s", lines, path)
	}

	var third syncBuffer
	vars := map[string]string{"OBJECTGATEWAY_ACCESS_KEY": "AKIDFROMENV", "OBJECTGATEWAY_SECRET_KEY": "secret-from-env"}
	startServe(t, args, vars, &third).stop()
	lines = logLines(t, third.String(), "root credentials")
	if len(lines) != 1 || lines[0]["level"] != "warn" || lines[0]["credentials"] != "environment" ||
		lines[0]["access_key"] != "AKIDFROMENV" || lines[0]["file_access_key"] != fileCreds.Access || lines[0]["file"] != path ||
		!strings.Contains(lines[0]["message"].(string), "the environment wins") {
		t.Errorf("start with differing environment: credentials lines %v; want one warning that the environment wins over %s", lines, path)
	}
	if now, err := os.ReadFile(path); err != nil || !bytes.Equal(now, stored) {
		t.Errorf("the credentials file changed: %q, was %q (%v)", now, stored, err)
	}

	for i, log := range []string{first.String(), second.String(), third.String()} {
		if strings.Contains(log, fileCreds.Secret) || strings.Contains(log, "secret-from-env") {
			t.Errorf("start %d logged a secret key", i+1)
		}
	}
}

// TestCredentialsEnvironmentSameAsFile: the environment repeating what the
// file holds is no conflict, and a damaged file under the environment is
// reported, not rewritten.
func TestCredentialsEnvironmentSameAsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), credentialsFile)
	c, src, err := loadCredentials(func(string) string { return "" }, path)
	if err != nil || src.from != fromGenerated {
		t.Fatalf("first load: %+v %v", src, err)
	}
	same := map[string]string{"OBJECTGATEWAY_ACCESS_KEY": c.Access, "OBJECTGATEWAY_SECRET_KEY": c.Secret}
	if _, src, err := loadCredentials(func(k string) string { return same[k] }, path); err != nil || src.from != fromEnvironment || src.shadowed != "" {
		t.Errorf("environment equal to the file: %+v %v; want no conflict", src, err)
	}
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, src, err := loadCredentials(func(k string) string { return same[k] }, path); err != nil || src.shadowed != "damaged" {
		t.Errorf("environment over a damaged file: %+v %v; want it reported as damaged", src, err)
	}
	if data, _ := os.ReadFile(path); string(data) != "{" {
		t.Errorf("the damaged file was rewritten: %q", data)
	}
}

// Gateways starting together on a new shared root generate credentials
// at once: one set is stored, and every gateway answers to it.
func TestCredentialsGeneratedOnceBySeveralGateways(t *testing.T) {
	path := filepath.Join(t.TempDir(), "credentials.json")
	const n = 8
	got := make([]credentials, n)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, _, err := loadCredentials(func(string) string { return "" }, path)
			if err != nil {
				t.Error(err)
			}
			got[i] = c
		}()
	}
	wg.Wait()
	stored, err := readCredentials(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range got {
		if c != stored {
			t.Errorf("gateway %d uses access key %s, the root's file %s", i, c.Access, stored.Access)
		}
	}
}
