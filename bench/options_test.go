package bench

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseCompare(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    []Endpoint
		wantErr string
	}{
		{in: "gw=http://127.0.0.1:9000", want: []Endpoint{{"gw", "http://127.0.0.1:9000", ModeS3, ""}}},
		{in: "gw=http://a:1, static=http://b:2;mode=static", want: []Endpoint{
			{"gw", "http://a:1", ModeS3, ""}, {"static", "http://b:2", ModeStatic, ""}}},
		{in: "aws=https://s3.amazonaws.com;mode=s3,", want: []Endpoint{{"aws", "https://s3.amazonaws.com", ModeS3, ""}}},
		// A pid list's commas continue it; the next NAME=URL starts an endpoint.
		{in: "og=http://a:1;mode=http;pid=12,varnish=http://b:2;mode=http;pid=20,21,22,nginx=http://c:3;pid=30;mode=http", want: []Endpoint{
			{"og", "http://a:1", ModeHTTP, "12"}, {"varnish", "http://b:2", ModeHTTP, "20,21,22"}, {"nginx", "http://c:3", ModeHTTP, "30"}}},
		{in: "a=http://x;mode=http;pid=0", wantErr: "not a process id"},
		{in: "a=http://x;pid=12x", wantErr: "not a process id"},
		{in: "a=http://x,12", wantErr: "not NAME=URL"},
		{in: "", wantErr: "no endpoints"},
		{in: "http://a:1", wantErr: "not NAME=URL"},
		{in: "=http://a:1", wantErr: "not NAME=URL"},
		{in: "a=ftp://x", wantErr: "not an http(s) URL"},
		{in: "a=http://x;mode=nginx", wantErr: "unknown option"},
		{in: "a=http://x,a=http://y", wantErr: "given twice"},
	} {
		got, err := ParseCompare(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ParseCompare(%q) error %v, want %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseCompare(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestParseArgs(t *testing.T) {
	aws := map[string]string{"AWS_ACCESS_KEY_ID": "awsak", "AWS_SECRET_ACCESS_KEY": "awssk",
		"OBJECTGATEWAY_ACCESS_KEY": "ogak", "OBJECTGATEWAY_SECRET_KEY": "ogsk"}
	og := map[string]string{"OBJECTGATEWAY_ACCESS_KEY": "ogak", "OBJECTGATEWAY_SECRET_KEY": "ogsk"}
	for _, c := range []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(Command) bool
		wantErr string
	}{
		{name: "endpoint and defaults", args: []string{"--endpoint", "http://h:1"}, env: aws, check: func(c Command) bool {
			o := c.Options
			return len(o.Endpoints) == 1 && o.Endpoints[0].Name == "target" && o.PathStyle &&
				o.Credentials == Credentials{"awsak", "awssk", "us-east-1"} && o.Scenarios == nil && !o.Quick
		}},
		{name: "flags win over the environment", args: []string{"--endpoint", "http://h:1", "--access-key", "a", "--secret-key", "s", "--region", "eu-west-1"}, env: aws,
			check: func(c Command) bool { return c.Options.Credentials == Credentials{"a", "s", "eu-west-1"} }},
		{name: "objectgateway variables are the fallback", args: []string{"--endpoint", "http://h:1"}, env: og,
			check: func(c Command) bool { return c.Options.Credentials.AccessKey == "ogak" }},
		{name: "static endpoints need no credentials", args: []string{"--compare", "s=http://h:1;mode=static"}, env: nil,
			check: func(c Command) bool { return c.Options.Endpoints[0].Mode == ModeStatic }},
		{name: "scenarios and sizes", args: []string{"--endpoint", "http://h:1", "--scenarios", "small-get, mixed", "--large-mib", "16", "--duration", "3s", "--quick", "--path-style=false"}, env: aws,
			check: func(c Command) bool {
				o := c.Options
				return slices.Equal(o.Scenarios, []string{"small-get", "mixed"}) && o.LargeSize == 16<<20 &&
					o.Duration == 3*time.Second && o.Quick && !o.PathStyle
			}},
		{name: "serve static", args: []string{"--serve-static", "/srv", "--listen", "127.0.0.1:0"}, env: nil,
			check: func(c Command) bool { return c.ServeStatic == "/srv" && c.Listen == "127.0.0.1:0" }},
		{name: "no endpoint", args: nil, env: aws, wantErr: "no endpoint"},
		{name: "both endpoint and compare", args: []string{"--endpoint", "http://h:1", "--compare", "a=http://h:2"}, env: aws, wantErr: "not both"},
		{name: "no credentials", args: []string{"--endpoint", "http://h:1"}, env: nil, wantErr: "no credentials"},
		{name: "unknown scenario", args: []string{"--endpoint", "http://h:1", "--scenarios", "small-get,nope"}, env: aws, wantErr: "unknown scenario"},
		{name: "unknown baseline", args: []string{"--compare", "a=http://h:1", "--baseline", "b"}, env: aws, wantErr: "not one of the endpoints"},
		{name: "stray argument", args: []string{"--endpoint", "http://h:1", "extra"}, env: aws, wantErr: "unexpected argument"},
		{name: "bad endpoint", args: []string{"--endpoint", "h:1"}, env: aws, wantErr: "--endpoint"},
		{name: "edge", args: []string{"--compare", "v=http://h:1;mode=http;pid=7", "--edge-origin", "http://o:2", "--edge-origin-pid", "3,4",
			"--edge-sizes", "100k, 16m,4096", "--edge-conns", "8", "--edge-hot-share", "95", "--scenarios", "edge"}, env: og,
			check: func(c Command) bool {
				e := c.Options.Edge
				return e.Origin == "http://o:2" && e.OriginPIDs == "3,4" && slices.Equal(e.Sizes, []int64{100 << 10, 16 << 20, 4096}) &&
					e.Conns == 8 && e.HotShare == 95 && slices.Equal(c.Options.Scenarios, []string{"edge"})
			}},
		{name: "edge needs credentials for the origin", args: []string{"--compare", "v=http://h:1;mode=http", "--edge-origin", "http://o:2"}, env: nil, wantErr: "no credentials"},
		{name: "edge without an origin", args: []string{"--endpoint", "http://h:1", "--scenarios", "edge"}, env: aws, wantErr: "--edge-origin"},
		{name: "http endpoint without an origin", args: []string{"--compare", "v=http://h:1;mode=http"}, env: aws, wantErr: "--edge-origin"},
		{name: "bad edge size", args: []string{"--compare", "v=http://h:1;mode=http", "--edge-origin", "http://o:2", "--edge-sizes", "1g"}, env: aws, wantErr: "--edge-sizes"},
		{name: "bad hot share", args: []string{"--compare", "v=http://h:1;mode=http", "--edge-origin", "http://o:2", "--edge-hot-share", "120"}, env: aws, wantErr: "percentages"},
	} {
		got, err := ParseArgs(c.args, func(k string) string { return c.env[k] }, io.Discard)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || !c.check(got) {
			t.Errorf("%s: %+v, %v", c.name, got, err)
		}
	}
}

func TestDefaults(t *testing.T) {
	full := Options{Endpoints: []Endpoint{{Name: "a"}}}.Defaults()
	if full.Count != 2000 || full.Objects != 10000 || full.LargeSize != 100<<20 || full.Concurrency != 32 ||
		full.Duration != 10*time.Second || full.Baseline != "a" || full.Credentials.Region != "us-east-1" {
		t.Errorf("full defaults %+v", full)
	}
	quick := Options{Quick: true, Count: 7}.Defaults()
	if quick.Count != 7 || quick.Objects != 1200 || quick.LargeSize != 8<<20 || quick.Duration != time.Second {
		t.Errorf("quick defaults %+v (an explicit count must be kept)", quick)
	}
}

func TestClientURL(t *testing.T) {
	for _, c := range []struct {
		base      string
		mode      Mode
		pathStyle bool
		key, q    string
		want      string
	}{
		{"http://127.0.0.1:9000", ModeS3, true, "small/obj", "", "http://127.0.0.1:9000/bkt/small/obj"},
		{"http://127.0.0.1:9000/", ModeS3, true, "", "list-type=2", "http://127.0.0.1:9000/bkt/?list-type=2"},
		{"https://s3.example.com", ModeS3, false, "small/obj", "", "https://bkt.s3.example.com/small/obj"},
		{"https://s3.example.com", ModeS3, false, "", "delete=", "https://bkt.s3.example.com/?delete="},
		{"http://proxy:8080/s3", ModeS3, true, "k", "", "http://proxy:8080/s3/bkt/k"},
		// A static server has no virtual hosts.
		{"http://127.0.0.1:9100", ModeStatic, false, "k", "", "http://127.0.0.1:9100/bkt/k"},
	} {
		cl, err := newClient(Endpoint{Name: "x", URL: c.base, Mode: c.mode}, Credentials{}, c.pathStyle, "bkt", 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := cl.url(c.key, c.q).String(); got != c.want {
			t.Errorf("url(%s, path-style %v, %q) = %s, want %s", c.base, c.pathStyle, c.key, got, c.want)
		}
	}
}
