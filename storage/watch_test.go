package storage

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWalkDirsConfinement checks that WalkDirs visits parents before
// children, reports links (to directories too) as entries without
// entering them, and refuses a starting directory reached through a link.
func TestWalkDirsConfinement(t *testing.T) {
	fs, dir := newTestFS(t, Options{})
	if _, err := fs.MakeBucket("bkt"); err != nil {
		t.Fatal(err)
	}
	bkt := filepath.Join(dir, "bkt")
	if err := os.MkdirAll(filepath.Join(bkt, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bkt, "a", "b", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"up": "..", "state": "../" + StateDir, "a/self": "."} {
		if err := os.Symlink(target, filepath.Join(bkt, link)); err != nil {
			t.Fatal(err)
		}
	}
	var dirs, files []string
	err := fs.WalkDirs("bkt", "", func(rel string, d *os.File) error {
		if _, err := d.Stat(); err != nil {
			return err
		}
		dirs = append(dirs, rel)
		return nil
	}, func(key string) error {
		files = append(files, key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	if strings.Join(dirs, ",") != ",a,a/b" || strings.Join(files, ",") != "a/b/f,a/self,state,up" {
		t.Errorf("dirs %q files %q", dirs, files)
	}
	for _, start := range []string{"up", "state", "a/self", "missing", "a/../a"} {
		err := fs.WalkDirs("bkt", start, func(string, *os.File) error {
			t.Errorf("WalkDirs(%q) entered a directory", start)
			return nil
		}, func(string) error { return nil })
		if err == nil {
			t.Errorf("WalkDirs(%q): no error", start)
		} else if start != "a/../a" && !errors.Is(err, ErrNotFound) {
			t.Errorf("WalkDirs(%q): %v, want ErrNotFound", start, err)
		}
	}
}

// TestWalkDirsListsEntriesCreatedDuringOnDir checks that an entry created
// while onDir runs (after the directory was opened, before watch mode's
// watch on it would exist) is reported. btrfs lists only the entries a
// directory had when its descriptor was opened, so a listing read from
// the descriptor onDir was given would miss it.
func TestWalkDirsListsEntriesCreatedDuringOnDir(t *testing.T) {
	fs, dir := newTestFS(t, Options{})
	if _, err := fs.MakeBucket("bkt"); err != nil {
		t.Fatal(err)
	}
	bkt := filepath.Join(dir, "bkt")
	if err := os.MkdirAll(filepath.Join(bkt, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	var dirs, files []string
	err := fs.WalkDirs("bkt", "", func(rel string, d *os.File) error {
		dirs = append(dirs, rel)
		if rel == "a" {
			if err := os.Mkdir(filepath.Join(bkt, "a", "sub"), 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(bkt, "a", "late"), nil, 0o644)
		}
		return nil
	}, func(key string) error {
		files = append(files, key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(dirs, ",") != ",a,a/sub" || strings.Join(files, ",") != "a/late" {
		t.Errorf("dirs %q files %q", dirs, files)
	}
}
