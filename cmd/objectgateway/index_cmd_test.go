package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	iofs "io/fs"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/pgtest"
	"github.com/objectgateway/objectgateway/storage"
)

// TestMain runs the command's tests through pgtest, which stops the
// throw-away PostgreSQL cluster that the index command's tests copy
// catalogues into.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// pgURL returns a postgres:// URL of a new database of pgtest's, with a
// password pgtest's server does not ask for (it trusts its socket), which
// the command must never print.
func pgURL(t *testing.T) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{"host": {cfg.Host}, "port": {fmt.Sprint(cfg.Port)}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.UserPassword(cfg.User, indexTestPassword), Path: "/" + cfg.Database, RawQuery: q.Encode()}).String()
}

const indexTestPassword = "pw-never-printed"

// runIndex runs `objectgateway index args…` in process and returns its
// stdout and stderr.
func runIndex(args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	err = run(context.Background(), append([]string{"index"}, args...), &out, &errb)
	return out.String(), errb.String(), err
}

// indexTestObjects are the objects fillIndexRoot puts, by bucket and key.
var indexTestObjects = map[string][]string{
	"photos": {"a.jpg", "dir/b.jpg", "dir/sub/c.jpg", "日本語.txt", "with space"},
	"docs":   {"report", "report", "notes/1"},
}

// fillIndexRoot serves nothing: it writes a root through the object
// layer, a plain bucket with user metadata and tags, a versioned one
// whose key has two versions, and a user.
func fillIndexRoot(t *testing.T, root string) {
	t.Helper()
	l, err := object.Open(object.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, b := range []string{"photos", "docs"} {
		if err := l.CreateBucket(object.Bucket{Name: b}); err != nil {
			t.Fatal(err)
		}
	}
	id, err := l.BucketID("docs")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetVersioning("docs", id, metadata.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	for bucket, keys := range indexTestObjects {
		for i, key := range keys {
			body := fmt.Sprintf("%s/%s #%d", bucket, key, i)
			_, err := l.PutObject(object.PutInput{Bucket: bucket, Key: key, Body: strings.NewReader(body), Size: int64(len(body)),
				Headers: object.Headers{ContentType: "text/plain", User: []metadata.KV{{Key: "n", Value: fmt.Sprint(i)}}},
				Tags:    []metadata.KV{{Key: "t", Value: bucket}}})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, _, err := l.Users(object.UsersOptions{}).AddUser(object.AddUserInput{Name: "alice", AccessKey: "AKALICEINDEXCOPY"}); err != nil {
		t.Fatal(err)
	}
}

// rootView is what a root's layer reads: every bucket's listing and
// versions, each object's record and bytes, and the users.
type rootView struct {
	Buckets  []string
	Objects  map[string]object.ListPage
	Versions map[string]metadata.VersionPage
	Bodies   map[string]string
	Users    []string
}

func viewRoot(t *testing.T, root string) rootView {
	t.Helper()
	l, err := object.Open(object.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	v := rootView{Objects: map[string]object.ListPage{}, Versions: map[string]metadata.VersionPage{}, Bodies: map[string]string{}}
	buckets, err := l.Buckets()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range buckets {
		v.Buckets = append(v.Buckets, fmt.Sprintf("%s id=%d versioning=%q", b.Name, b.ID, b.Versioning))
		page, err := l.ListObjects(b.Name, object.ListQuery{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		v.Objects[b.Name] = page
		if v.Versions[b.Name], err = l.ListVersions(b.Name, metadata.VersionQuery{Limit: 1000}); err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Objects {
			rd, err := l.OpenObject(b.Name, o.Key)
			if err != nil {
				t.Fatalf("OpenObject(%s, %q): %v", b.Name, o.Key, err)
			}
			body, err := io.ReadAll(rd.File)
			rd.Close()
			if err != nil {
				t.Fatal(err)
			}
			v.Bodies[b.Name+"/"+o.Key] = string(body)
		}
	}
	us := l.Users(object.UsersOptions{})
	users, err := us.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		// The secret is sealed in the index; it must open on the new
		// root as on the old.
		secret, ok := us.SecretKey(u.AccessKey)
		v.Users = append(v.Users, fmt.Sprintf("%s %s secret=%q,%v", u.AccessKey, u.Name, secret, ok))
	}
	return v
}

// linkRootFiles makes dst a copy of the root src without its index: every
// file hard-linked, so that the objects keep the inode and mtime their
// records name.
func linkRootFiles(t *testing.T, src, dst string) {
	t.Helper()
	index := filepath.Join(src, storage.StateDir, object.IndexFile)
	err := filepath.WalkDir(src, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		switch {
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case p == index || !d.Type().IsRegular():
			return nil
		}
		return os.Link(p, filepath.Join(dst, rel))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestIndexExportImport exports a root's bbolt index into PostgreSQL and
// imports it into a new root holding the same files: the new root reads
// as the first (listings, versions, records, bytes, users) through the
// object layer. The DSN's password is never printed, an export into the
// now full database is refused, and a root a gateway holds is refused
// with the question whether one runs.
func TestIndexExportImport(t *testing.T) {
	r1, r2 := t.TempDir(), t.TempDir()
	fillIndexRoot(t, r1)
	want := viewRoot(t, r1)
	dsn := pgURL(t)

	stdout, stderr, err := runIndex("export", "--root", r1, "--to", dsn, "--batch", "7")
	if err != nil {
		t.Fatalf("index export: %v\n%s%s", err, stdout, stderr)
	}
	for _, want := range []string{"objects", "buckets", "users", "verified:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("index export's report does not show %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "keys") || !strings.Contains(stderr, "PostgreSQL database") {
		t.Errorf("index export's progress: %q", stderr)
	}
	linkRootFiles(t, r1, r2)
	stdout, stderr, err = runIndex("import", "--from", dsn, "--root", r2)
	if err != nil {
		t.Fatalf("index import: %v\n%s%s", err, stdout, stderr)
	}
	if got := viewRoot(t, r2); !reflect.DeepEqual(got, want) {
		t.Errorf("the imported root reads\n%+v\nthe exported one\n%+v", got, want)
	}
	if got := len(want.Versions["docs"].Entries); got != 3 {
		t.Errorf("docs has %d versions; the fill makes 3", got)
	}

	_, _, err = runIndex("export", "--root", r1, "--to", dsn)
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("an export into a catalogue that holds one: %v; want a refusal saying it is not empty", err)
	}
	for _, s := range []string{stdout, stderr, fmt.Sprint(err)} {
		if strings.Contains(s, indexTestPassword) {
			t.Errorf("the command printed the DSN's password: %q", s)
		}
	}

	held, err := object.Open(object.Options{Root: r2})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	_, _, err = runIndex("export", "--root", r2, "--to", pgURL(t))
	if err == nil || !strings.Contains(err.Error(), "is a gateway running on this root?") {
		t.Errorf("an export of a root a gateway holds: %v; want the question whether one runs", err)
	}
}

// TestIndexCopyBoltToBolt copies a root's index into a bbolt file named
// by bbolt:FILE with `index copy`, and refuses a second copy into it and
// a copy of an index into itself.
func TestIndexCopyBoltToBolt(t *testing.T) {
	r1 := t.TempDir()
	fillIndexRoot(t, r1)
	file := filepath.Join(t.TempDir(), "copy.db")
	stdout, stderr, err := runIndex("copy", "--from", r1, "--to", "bbolt:"+file)
	if err != nil || !strings.Contains(stdout, "verified:") {
		t.Fatalf("index copy: %v\n%s%s", err, stdout, stderr)
	}
	ix, err := metadata.Open(file, metadata.Options{})
	if err != nil {
		t.Fatal(err)
	}
	users, err := ix.Users()
	ix.Close()
	if err != nil || len(users) != 1 || users[0].Name != "alice" {
		t.Errorf("the copy's users: %+v, %v", users, err)
	}
	if _, _, err := runIndex("copy", "--from", r1, "--to", "bbolt:"+file); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("a second copy into the same file: %v; want a refusal", err)
	}
	index := filepath.Join(r1, storage.StateDir, object.IndexFile)
	if _, _, err := runIndex("copy", "--from", r1, "--to", "bbolt:"+index); err == nil || !strings.Contains(err.Error(), "both") {
		t.Errorf("a copy of an index into itself: %v; want a refusal", err)
	}
	if _, _, err := runIndex("copy", "--from", filepath.Join(t.TempDir(), "nothing"), "--to", "bbolt:"+filepath.Join(t.TempDir(), "x.db")); err == nil {
		t.Error("a copy from a root that does not exist was not refused")
	}
}

// TestIndexAddrParse reads each spelling of a side of a copy, and prints
// a PostgreSQL one without its password.
func TestIndexAddrParse(t *testing.T) {
	for _, tc := range []struct {
		in        string
		file, dsn string
		printed   string
		bad       bool
	}{
		{in: "/srv/data", file: "/srv/data/.objectgateway/index.db", printed: "/srv/data/.objectgateway/index.db"},
		{in: "bbolt:/tmp/i.db", file: "/tmp/i.db", printed: "/tmp/i.db"},
		{in: "postgres://u:secret@db.example:5433/cat", dsn: "postgres://u:secret@db.example:5433/cat", printed: "PostgreSQL database cat on db.example:5433"},
		{in: "postgresql://u@/cat?host=/run/pg", dsn: "postgresql://u@/cat?host=/run/pg", printed: "PostgreSQL database cat on /run/pg:5432"},
		{in: "", bad: true},
		{in: "bbolt:", bad: true},
		{in: "postgres://u:secret@host:notaport/db", bad: true},
	} {
		a, err := parseIndexAddr(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("parseIndexAddr(%q) = %+v; want an error", tc.in, a)
			} else if strings.Contains(err.Error(), "secret") {
				t.Errorf("parseIndexAddr(%q): %v prints the password", tc.in, err)
			}
			continue
		}
		if err != nil || a.file != tc.file || a.dsn != tc.dsn || a.String() != tc.printed {
			t.Errorf("parseIndexAddr(%q) = %+v (%s), %v; want file %q, dsn %q, printed %q", tc.in, a, a, err, tc.file, tc.dsn, tc.printed)
		}
	}
}

// TestIndexHelp: the index command and each of its commands answer -h on
// stdout with nothing on stderr, the top-level help names it, and an
// unknown index command or a spelled-out form given the wrong kind of
// catalogue is a usage error (exit status 2).
func TestIndexHelp(t *testing.T) {
	for _, args := range [][]string{{"index"}, {"index", "-h"}, {"index", "--help"}, {"help", "index"}, {"index", "copy", "-h"}, {"index", "export", "--help"}, {"index", "import", "-h"}} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		if err != nil || stdout.Len() == 0 || stderr.Len() != 0 {
			t.Errorf("%q: %v, stdout %d bytes, stderr %q; want the help on stdout alone", args, err, stdout.Len(), stderr.String())
		}
	}
	var top bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, &top, &top); err != nil || !strings.Contains(top.String(), "index ") {
		t.Errorf("objectgateway --help does not name index: %v\n%s", err, top.String())
	}
	for _, args := range [][]string{{"nonsense"}, {"export", "--root", t.TempDir(), "--to", "bbolt:/tmp/x.db"}, {"import", "--from", t.TempDir(), "--root", t.TempDir()}, {"copy", "--from", "x"}} {
		if _, _, err := runIndex(args...); exitCode(err) != 2 {
			t.Errorf("index %q: %v (exit %d); want exit 2", args, err, exitCode(err))
		}
	}
}
