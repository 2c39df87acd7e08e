package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// runUserStdin is runUser with stdin.
func runUserStdin(t *testing.T, root string, stdin io.Reader, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := userCmd(append(args, "--root", root), env{stdout: &out, stderr: io.Discard, stdin: stdin, getenv: func(string) string { return "" }})
	return out.String(), err
}

func writePolicy(t *testing.T, doc string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const readOnlyShared = `{
  "Version": "2012-10-17",
  "Statement": [
    {"Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"], "Resource": ["arn:aws:s3:::shared", "arn:aws:s3:::shared/pub/*"]}
  ]
}
`

// TestUserPolicyCommands runs `user policy put|get|delete` on an index
// no gateway serves: the document comes back as it was put, and a bad
// one is refused with a message that says what is wrong.
func TestUserPolicyCommands(t *testing.T) {
	root := t.TempDir()
	if _, err := runUser(t, root, "add", "reader", "--access-key", "AKIDREADER"); err != nil {
		t.Fatal(err)
	}
	if out, err := runUser(t, root, "policy", "put", "AKIDREADER", writePolicy(t, readOnlyShared)); err != nil || !strings.Contains(out, "Identity policy of AKIDREADER set") {
		t.Fatalf("user policy put: %q, %v", out, err)
	}
	if out, err := runUser(t, root, "policy", "get", "AKIDREADER"); err != nil || out != readOnlyShared {
		t.Errorf("user policy get: %q, %v; want the document as put", out, err)
	}
	if out, err := runUser(t, root, "list"); err != nil || !strings.Contains(out, "POLICY") || !strings.Contains(out, "identity") {
		t.Errorf("user list: %q, %v", out, err)
	}
	// From stdin, replacing the first.
	other := `{"Version":"2012-10-17","Statement":{"Effect":"Deny","Action":"s3:DeleteObject","Resource":"*"}}`
	if _, err := runUserStdin(t, root, strings.NewReader(other), "policy", "put", "AKIDREADER", "-"); err != nil {
		t.Fatalf("user policy put -: %v", err)
	}
	if out, err := runUser(t, root, "policy", "get", "AKIDREADER"); err != nil || out != other+"\n" {
		t.Errorf("user policy get after put -: %q, %v", out, err)
	}

	long := `{"Version":"2012-10-17","Id":"` + strings.Repeat("x", 2048) + `","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`
	for _, c := range []struct {
		name, doc, want string
	}{
		{"bad JSON", `{"Version":"2012-10-17","Statement":[`, "malformed policy: This policy contains invalid Json"},
		{"not JSON", `Statement: Allow`, "malformed policy: Policies must be valid JSON"},
		{"Principal", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*"}}`, "Policy document should not specify a principal"},
		{"NotPrincipal", `{"Version":"2012-10-17","Statement":{"Effect":"Deny","NotPrincipal":{"AWS":"x"},"Action":"s3:GetObject","Resource":"*"}}`, "Policy document should not specify a principal"},
		{"no Resource", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject"}}`, "Missing required field Resource"},
		{"too large", long, "Maximum policy size of 2048 bytes exceeded"},
		{"over 20 KB", `{"Version":"2012-10-17",` + strings.Repeat(" ", 21<<10) + `"Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`, "at most 20480 bytes"},
	} {
		_, err := runUser(t, root, "policy", "put", "AKIDREADER", writePolicy(t, c.doc))
		if err == nil || !errors.Is(err, errMalformedPolicy) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	if out, _ := runUser(t, root, "policy", "get", "AKIDREADER"); out != other+"\n" {
		t.Errorf("a refused put changed the policy: %q", out)
	}
	if _, err := runUser(t, root, "policy", "put", "AKIDREADER", filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := runUser(t, root, "policy", "put", "AKIDNOBODY", writePolicy(t, other)); err == nil || err.Error() != "no user with access key AKIDNOBODY" {
		t.Errorf("a missing user: %v", err)
	}
	for _, bad := range [][]string{{"policy", "put", "AKIDREADER"}, {"policy", "get"}, {"policy", "frob", "AKIDREADER"}, {"policy", "delete", "a", "b"}} {
		if _, err := runUser(t, root, bad...); err == nil {
			t.Errorf("user %v succeeded", bad)
		}
	}
	if out, err := runUser(t, root, "policy", "delete", "AKIDREADER"); err != nil || !strings.Contains(out, "removed") {
		t.Errorf("user policy delete: %q, %v", out, err)
	}
	if _, err := runUser(t, root, "policy", "get", "AKIDREADER"); err == nil || err.Error() != "user AKIDREADER has no identity policy" {
		t.Errorf("get after delete: %v", err)
	}
	if _, err := runUser(t, root, "policy", "delete", "AKIDREADER"); err == nil || err.Error() != "user AKIDREADER has no identity policy" {
		t.Errorf("delete after delete: %v", err)
	}
	if out, err := runUser(t, root, "policy", "-h"); err != nil || !strings.Contains(out, "2,048 characters") {
		t.Errorf("user policy -h: %q, %v", out, err)
	}
}

// TestUserPolicyWhileServing attaches, replaces and removes an identity
// policy with the CLI while a gateway serves: each change goes through
// the control socket and decides the user's next request.
func TestUserPolicyWhileServing(t *testing.T) {
	root := t.TempDir()
	var logs syncBuffer
	g := startControlGateway(t, root, &logs)
	ctx := context.Background()
	rootc := s3Client(g.addr, controlRootAccess, controlRootSecret)
	if _, err := rootc.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("shared")}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pub/a", "private/b"} {
		if _, err := rootc.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("shared"), Key: aws.String(k), Body: strings.NewReader(k)}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := runUser(t, root, "add", "reader", "--access-key", "AKIDREADER")
	if err != nil {
		t.Fatal(err)
	}
	c := s3Client(g.addr, "AKIDREADER", secretLine.FindStringSubmatch(out)[1])
	get := func(key string) string {
		_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("shared"), Key: aws.String(key)})
		return s3Code(t, err)
	}
	put := func(key string) string {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("shared"), Key: aws.String(key), Body: strings.NewReader("x")})
		return s3Code(t, err)
	}
	if code := get("pub/a"); code != "AccessDenied" {
		t.Fatalf("before any policy: %q, want AccessDenied", code)
	}
	if _, err := runUser(t, root, "policy", "put", "AKIDREADER", writePolicy(t, readOnlyShared)); err != nil {
		t.Fatalf("user policy put while serving: %v", err)
	}
	if code := get("pub/a"); code != "" {
		t.Errorf("read under the policy: %q", code)
	}
	if code := get("private/b"); code != "AccessDenied" {
		t.Errorf("read outside the policy's prefix: %q, want AccessDenied", code)
	}
	if code := put("pub/new"); code != "AccessDenied" {
		t.Errorf("write under a read-only policy: %q, want AccessDenied", code)
	}
	if out, err := runUser(t, root, "policy", "get", "AKIDREADER"); err != nil || out != readOnlyShared {
		t.Errorf("user policy get while serving: %q, %v", out, err)
	}
	// A malformed policy sent to the socket directly is refused there too.
	status, doc := controlCall(t, unixClient(t, controlSocketPath(root)), "PUT", "/users/AKIDREADER/policy",
		`{"policy":"{\"Version\":\"2012-10-17\",\"Statement\":{\"Effect\":\"Allow\",\"Principal\":\"*\",\"Action\":\"s3:GetObject\",\"Resource\":\"*\"}}"}`)
	if status != 400 || doc["code"] != "MalformedPolicy" || !strings.Contains(doc["message"].(string), "should not specify a principal") {
		t.Errorf("PUT of a policy with a Principal: %d %v", status, doc)
	}
	if code := get("pub/a"); code != "" {
		t.Errorf("read after a refused put: %q", code)
	}
	if _, err := runUser(t, root, "policy", "delete", "AKIDREADER"); err != nil {
		t.Fatal(err)
	}
	if code := get("pub/a"); code != "AccessDenied" {
		t.Errorf("read after the policy is removed: %q, want AccessDenied", code)
	}
	if _, err := runUser(t, root, "policy", "get", "AKIDREADER"); err == nil || err.Error() != "user AKIDREADER has no identity policy" {
		t.Errorf("get through the socket after delete: %v", err)
	}
	g.stop()
	for _, op := range []string{"PutUserPolicy", "DeleteUserPolicy"} {
		if !strings.Contains(logs.String(), `"op":"`+op+`","access_key":"AKIDREADER"`) {
			t.Errorf("no info line for %s in the gateway's log", op)
		}
	}
}
