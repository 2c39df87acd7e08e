package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/kms"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/storage"
)

// TestKMSCommand runs kms create, rotate, list, disable and enable on a
// root: the ring file is created 0600 in the state directory, list shows
// names and versions but never key material, and a ring opened before
// the commands (a running gateway) sees their effect.
func TestKMSCommand(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, storage.StateDir, object.KeyRingFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	running, err := kms.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	kmsRun := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if err := dispatch(context.Background(), append([]string{"kms"}, append(args, "--root", root)...), &out, &errb); err != nil {
			t.Fatalf("kms %v: %v (%s)", args, err, errb.String())
		}
		return out.String()
	}
	kmsRun("create", "app")
	if out := kmsRun("rotate", "app"); !strings.Contains(out, "version 2") {
		t.Fatalf("rotate said %q", out)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("ring file: %v, mode %v", err, fi.Mode().Perm())
	}
	list := kmsRun("list")
	if !strings.Contains(list, "app\tversions=2\tenabled") || !strings.Contains(list, kms.DefaultKey) {
		t.Fatalf("list = %q", list)
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(list, `"key"`) || len(list) > len(raw)/2 {
		t.Fatalf("list prints more than names: %q", list)
	}
	if v, _, err := running.Seal("app", make([]byte, 32), nil); err != nil || v != 2 {
		t.Fatalf("the running ring sealed with version %d, %v; want 2", v, err)
	}
	kmsRun("disable", "app")
	if err := running.Exists("app"); err == nil {
		t.Fatal("the running ring still uses a disabled key")
	}
	kmsRun("enable", "app")
	if err := running.Exists("app"); err != nil {
		t.Fatalf("after enable: %v", err)
	}
}
