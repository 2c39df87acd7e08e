package main

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeSigV2Flag checks --sigv2: a ListBuckets signed with Signature
// Version 2 is served by default and refused with S3's answer with
// --sigv2=false.
func TestServeSigV2Flag(t *testing.T) {
	const access, secret = "AKIDSIGV2FLAG", "sigv2-flag-secret"
	vars := map[string]string{"OBJECTGATEWAY_ACCESS_KEY": access, "OBJECTGATEWAY_SECRET_KEY": secret}
	for _, tc := range []struct {
		flags  []string
		status int
		want   string
	}{
		{status: 200, want: "<ListAllMyBucketsResult"},
		{flags: []string{"--sigv2=false"}, status: 400, want: "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256."},
	} {
		args := append([]string{"--root", t.TempDir(), "--listen", "127.0.0.1:0", "--fsync=false", "--log-level", "error"}, tc.flags...)
		sv := startServe(t, args, vars, nil)
		req, err := http.NewRequest("GET", "http://"+sv.addr+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		date := time.Now().UTC().Format(http.TimeFormat)
		m := hmac.New(sha1.New, []byte(secret))
		m.Write([]byte("GET\n\n\n" + date + "\n/"))
		req.Header.Set("Date", date)
		req.Header.Set("Authorization", "AWS "+access+":"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.want) {
			t.Errorf("%v: %d %s, want %d with %q", tc.flags, resp.StatusCode, body, tc.status, tc.want)
		}
		sv.stop()
	}
}
