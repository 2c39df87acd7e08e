package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/api"
)

// lockedBuffer collects log lines written by server goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// counter returns the value of a counter with the given labels.
func counter(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if matchLabels(m, labels) {
				switch {
				case m.Counter != nil:
					return m.Counter.GetValue()
				case m.Gauge != nil:
					return m.Gauge.GetValue()
				case m.Histogram != nil:
					return float64(m.Histogram.GetSampleCount())
				}
			}
		}
	}
	return 0
}

func matchLabels(m *dto.Metric, want map[string]string) bool {
	n := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(want)
}

// TestMetricsAndAccessLog drives a few requests and checks the Prometheus
// counters they produce and the access log: one JSON line per request with
// the fixed fields, and never a signature, credential or secret.
func TestMetricsAndAccessLog(t *testing.T) {
	reg := prometheus.NewRegistry()
	var logs lockedBuffer
	g := startGateway(t, func(o *api.Options) {
		o.Logger = zerolog.New(&logs)
		o.Metrics = api.NewMetrics(reg)
	})
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("metrics")}); err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("m", 1000)
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("metrics"), Key: aws.String("k"), Body: strings.NewReader(body)}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("metrics"), Key: aws.String("k")})
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, out.Body)
		out.Body.Close()
	}
	if _, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("metrics"), Key: aws.String("missing")}); err == nil {
		t.Fatal("GET of a missing key succeeded")
	}
	presigned, err := s3.NewPresignClient(c).PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("metrics"), Key: aws.String("k")}, s3.WithPresignExpires(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(presigned.URL)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("presigned GET: %d", resp.StatusCode)
	}

	// The server records a request after its response is written, so the
	// client can see the last response a moment before it is counted.
	deadline := time.Now().Add(5 * time.Second)
	for counter(t, reg, "objectgateway_requests_in_flight", nil) != 0 || strings.Count(logs.String(), "\n") < 7 {
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	for _, c := range []struct {
		op, status string
		want       float64
	}{
		{"CreateBucket", "200", 1},
		{"PutObject", "200", 1},
		{"GetObject", "200", 4},
		{"GetObject", "404", 1},
	} {
		if got := counter(t, reg, "objectgateway_requests_total", map[string]string{"op": c.op, "status": c.status}); got != c.want {
			t.Errorf("requests_total{op=%s,status=%s} = %v, want %v", c.op, c.status, got, c.want)
		}
	}
	if got := counter(t, reg, "objectgateway_request_duration_seconds", map[string]string{"op": "GetObject"}); got != 5 {
		t.Errorf("GetObject latency samples = %v, want 5", got)
	}
	if got := counter(t, reg, "objectgateway_sent_bytes_total", nil); got < 4*1000 {
		t.Errorf("sent bytes %v, want at least the four bodies", got)
	}
	if got := counter(t, reg, "objectgateway_received_bytes_total", nil); got < 1000 {
		t.Errorf("received bytes %v, want at least the PUT body", got)
	}
	if got := counter(t, reg, "objectgateway_requests_in_flight", nil); got != 0 {
		t.Errorf("in flight %v after all requests ended", got)
	}

	text := logs.String()
	sig := presigned.URL[strings.Index(presigned.URL, "X-Amz-Signature=")+len("X-Amz-Signature="):]
	for _, secret := range []string{g.SecretKey, sig, "X-Amz-Signature", "X-Amz-Credential", "Signature=", "Authorization", "AWS4-HMAC-SHA256"} {
		if strings.Contains(text, secret) {
			t.Errorf("the access log contains %q", secret)
		}
	}
	lines := 0
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("log line is not JSON: %q", sc.Text())
		}
		for _, f := range []string{"request_id", "op", "bucket", "key", "status", "bytes_out", "duration_us", "remote", "access_key"} {
			if _, ok := line[f]; !ok {
				t.Errorf("log line lacks %q: %s", f, sc.Text())
			}
		}
		lines++
	}
	if lines != 7 {
		t.Errorf("%d access-log lines, want one per request (7)", lines)
	}
}
