package main

// This file runs docs/scale-out.md's topology end to end: three gateway
// processes on one root and one PostgreSQL catalogue, with nginx in front
// of them configured by the block the document shows.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awscreds "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/objectgateway/objectgateway/pkg/pgtest"
)

const (
	scaleDoc = "../../docs/scale-out.md"
	awsBin   = "/usr/bin/aws"

	scaleAccess = "AKIDSCALEOUTTEST0000"
	scaleSecret = "scale/out/secret/0123456789abcdefghijkl"
	scaleBucket = "shared"
	cliBucket   = "cli"

	// scaleWait bounds every wait for a gateway and every request of the
	// Go clients.
	scaleWait = 20 * time.Second
	// cliWait bounds one AWS CLI command.
	cliWait = 60 * time.Second

	// scaleRacers conditional writers race for one key, a third through
	// each gateway.
	scaleRacers = 30
	// The kill -9 phase: scaleWriters writers (half through gateway 1,
	// half through gateway 2) of up to scalePuts distinct keys each;
	// gateway 2 is killed once scaleKillAfter writes have been
	// acknowledged in all.
	scaleWriters   = 4
	scalePuts      = 200
	scaleKillAfter = 120
	// scaleBig is the AWS CLI's multipart upload: three parts of the CLI's
	// 8 MiB chunk size, spread over the gateways by nginx.
	scaleBig = 20 << 20
)

// scaleGateway is one gateway process of the scale-out test, started from
// the built binary so that it can be killed with SIGKILL.
type scaleGateway struct {
	t    *testing.T
	name string
	bin  string
	args []string

	// The running process; addr, log and client are the current run's.
	cmd    *exec.Cmd
	exited chan struct{}
	// waitErr is the process's exit status, set before exited is closed.
	waitErr error
	addr    string
	log     *syncBuffer
	client  *s3.Client
}

// startScaleGateway runs `serve` on root with the catalogue dsn and
// returns once it listens. Cleanup stops it with SIGTERM and fails the test
// if it does not exit cleanly.
func startScaleGateway(t *testing.T, name, bin, root, dsn string) *scaleGateway {
	t.Helper()
	g := &scaleGateway{t: t, name: name, bin: bin,
		args: []string{"serve", "--root", root, "--index", dsn, "--listen", "127.0.0.1:0", "--log-level", "info"}}
	g.start()
	t.Cleanup(g.stop)
	return g
}

// start runs the process and waits until its log names the address it
// listens on.
func (g *scaleGateway) start() {
	t := g.t
	t.Helper()
	cmd := exec.Command(g.bin, g.args...)
	cmd.Env = append(os.Environ(), "OBJECTGATEWAY_ACCESS_KEY="+scaleAccess, "OBJECTGATEWAY_SECRET_KEY="+scaleSecret)
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g.cmd, g.exited, g.log = cmd, make(chan struct{}), &syncBuffer{}
	addrc := make(chan string, 1)
	go func(log *syncBuffer, exited chan struct{}) {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			log.Write([]byte(line + "\n"))
			var m struct{ Message, Listen string }
			if json.Unmarshal([]byte(line), &m) == nil && m.Message == "ObjectGateway serving S3" {
				addrc <- m.Listen
			}
		}
		// Wait closes the pipe, so it runs only once the log is read.
		g.waitErr = cmd.Wait()
		close(exited)
	}(g.log, g.exited)
	select {
	case g.addr = <-addrc:
	case <-g.exited:
		t.Fatalf("%s exited before serving: %v\n%s", g.name, g.waitErr, g.log.String())
	case <-time.After(scaleWait):
		g.kill()
		t.Fatalf("%s did not serve within %v\n%s", g.name, scaleWait, g.log.String())
	}
	g.client = scaleClient(g.addr)
}

// kill ends the process with SIGKILL and waits until it is gone.
func (g *scaleGateway) kill() {
	g.t.Helper()
	g.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-g.exited:
	case <-time.After(scaleWait):
		g.t.Fatalf("%s still running %v after SIGKILL", g.name, scaleWait)
	}
}

// stop ends a running process with SIGTERM and fails the test unless it
// exits cleanly; a process already gone is left alone.
func (g *scaleGateway) stop() {
	select {
	case <-g.exited:
		return
	default:
	}
	g.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-g.exited:
		if g.waitErr != nil {
			g.t.Errorf("%s did not stop cleanly: %v\n%s", g.name, g.waitErr, g.log.String())
		}
	case <-time.After(scaleWait):
		g.cmd.Process.Kill()
		<-g.exited
		g.t.Errorf("%s did not stop within %v of SIGTERM", g.name, scaleWait)
	}
}

// served returns the gateways' access-log lines of op on key with status.
func (g *scaleGateway) served(op, key string, status int) int {
	n := 0
	for _, line := range strings.Split(g.log.String(), "\n") {
		var m struct {
			Op     string `json:"op"`
			Key    string `json:"key"`
			Status int    `json:"status"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Op == op && m.Key == key && m.Status == status {
			n++
		}
	}
	return n
}

// errorLines returns the process's log lines at level error.
func (g *scaleGateway) errorLines() []string {
	var out []string
	for _, line := range strings.Split(g.log.String(), "\n") {
		var m struct{ Level string }
		if json.Unmarshal([]byte(line), &m) == nil && m.Level == "error" {
			out = append(out, line)
		}
	}
	return out
}

// scaleClient is an aws-sdk-go-v2 client of the gateway at addr with the
// SDK's default checksums, no retries (the test sees every first answer)
// and a bound on every request.
func scaleClient(addr string) *s3.Client {
	return s3.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: awscreds.NewStaticCredentialsProvider(scaleAccess, scaleSecret, ""),
		HTTPClient:  &http.Client{Timeout: scaleWait, Transport: &http.Transport{MaxIdleConnsPerHost: scaleRacers}},
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
	}, func(o *s3.Options) {
		o.BaseEndpoint = aws.String("http://" + addr)
		o.UsePathStyle = true
	})
}

// scaleDocBlock returns the fenced code block that follows the marker
// "<!-- scale-out-test: name -->" in docs/scale-out.md.
func scaleDocBlock(t *testing.T, name string) string {
	t.Helper()
	return docBlockIn(t, scaleDoc, "scale-out-test", name)
}

// scaleReplace replaces old, which must occur exactly once, in the
// configuration s from docs/scale-out.md.
func scaleReplace(t *testing.T, s, old, new string) string {
	t.Helper()
	return replaceOnceIn(t, scaleDoc, s, old, new)
}

// needTool skips the test when the program at path is missing, except
// under CI=true (.ci/run installs it), where that fails it.
func needTool(t *testing.T, path, what string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (%s: %v) and CI=true: the scale-out test must run in CI", what, path, err)
		}
		t.Skipf("%s is not installed (%s: %v): the docs/scale-out.md topology is not exercised", what, path, err)
	}
}

// awsCLI runs the AWS CLI v2 against endpoint with the test's credentials
// and a configuration of its own (nothing of the machine's ~/.aws).
type awsCLI struct {
	t        *testing.T
	endpoint string
	env      []string
}

func newAWSCLI(t *testing.T, endpoint string) *awsCLI {
	dir := t.TempDir()
	config := filepath.Join(dir, "config")
	// The chunk size and threshold are the CLI's defaults, written out
	// because the test counts the parts of its multipart upload.
	if err := os.WriteFile(config, []byte("[default]\nregion = us-east-1\ncli_pager =\ns3 =\n    addressing_style = path\n    multipart_threshold = 8MB\n    multipart_chunksize = 8MB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return &awsCLI{t: t, endpoint: endpoint, env: []string{
		"PATH=/usr/bin:/bin", "HOME=" + dir, "LANG=C.UTF-8",
		"AWS_CONFIG_FILE=" + config,
		"AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(dir, "absent"),
		"AWS_ACCESS_KEY_ID=" + scaleAccess, "AWS_SECRET_ACCESS_KEY=" + scaleSecret,
		"AWS_EC2_METADATA_DISABLED=true", "AWS_PAGER=",
	}}
}

// run runs one command and returns its standard output; a failure fails
// the test with the command's output.
func (c *awsCLI) run(args ...string) string {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, awsBin, append([]string{"--endpoint-url", c.endpoint}, args...)...)
	cmd.Env = c.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		c.t.Fatalf("aws %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// scaleBody is the body of the kill phase's key i of writer w: its own
// name repeated, 1 to 16 KiB, so that a body read back names the write it
// came from and a torn one shows.
func scaleBody(w, i int) []byte {
	line := fmt.Sprintf("writer %d put %03d\n", w, i)
	n := (1<<10 + (w*scalePuts+i)*97%(15<<10)) / len(line)
	return bytes.Repeat([]byte(line), n+1)
}

func scaleKey(w, i int) string { return fmt.Sprintf("kill/w%d/%03d", w, i) }

// isConnError reports whether err is a request that got no HTTP answer at
// all: the connection was refused, reset or closed under it. An S3 error
// answer, or any other HTTP status, is not one.
func isConnError(err error) bool {
	// The SDK wraps a failed send in a ResponseError too, with status 0.
	var apiErr smithy.APIError
	var respErr *awshttp.ResponseError
	if errors.As(err, &apiErr) || errors.As(err, &respErr) && respErr.HTTPStatusCode() != 0 {
		return false
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func getBytes(ctx context.Context, c *s3.Client, bucket, key string) ([]byte, string, error) {
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, "", err
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	return b, aws.ToString(out.ETag), err
}

// TestScaleOutGateways runs docs/scale-out.md: three gateways serve one
// root with one catalogue in PostgreSQL (reached over TCP, as remote
// gateways reach it), behind nginx configured with the document's block.
//
//   - The AWS CLI v2 through nginx makes a bucket, uploads a small file and
//     a 20 MiB one (a multipart upload whose requests nginx spreads over
//     the gateways: created on one, completed on another), lists, downloads
//     and compares, and removes them.
//   - Each gateway's own client: a write through one is read and listed
//     through the others at once, an overwrite likewise.
//   - 30 conditional writers (If-None-Match: *) of one key, ten through
//     each gateway, released together: one 200, 29 412 PreconditionFailed,
//     and every gateway serves the winner's bytes.
//   - Writers through gateways 1 and 2; gateway 2 is killed with SIGKILL
//     after a fixed number of acknowledged writes. No acknowledged write is
//     lost (gateways 1 and 3 read each back, byte for byte, and list it),
//     the writes through the dead gateway fail with connection errors,
//     nothing it had in flight is torn or keeps a lock, nginx keeps
//     serving through the other two, and gateway 2 restarted serves
//     everything.
//
// It skips without nginx or the AWS CLI (PostgreSQL: see pkg/pgtest),
// except under CI=true, where their absence fails it.
func TestScaleOutGateways(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the gateway and runs three processes, PostgreSQL and nginx")
	}
	needTool(t, nginxBin, "nginx")
	needTool(t, awsBin, "the AWS CLI v2")
	began := time.Now()
	// The database comes first, so that its drop (a cleanup) runs after
	// the gateways' stops.
	dsn := pgtest.TCPDSN(t)
	bin := buildGateway(t)
	root := t.TempDir()
	gws := make([]*scaleGateway, 3)
	for i := range gws {
		gws[i] = startScaleGateway(t, "gateway "+strconv.Itoa(i+1), bin, root, dsn)
	}
	g1, g2, g3 := gws[0], gws[1], gws[2]

	conf := scaleDocBlock(t, "nginx")
	for i, g := range gws {
		conf = scaleReplace(t, conf, "server 10.0.0.1"+strconv.Itoa(i+1)+":9000;", "server "+g.addr+";")
	}
	lb := "127.0.0.1:" + strconv.Itoa(freePort(t))
	conf = scaleReplace(t, conf, "listen 80;", "listen "+lb+";")
	startNginxConf(t, conf, lb)

	ctx := context.Background()
	cli := newAWSCLI(t, "http://"+lb)
	scaleCLI(t, cli, gws)

	// Read-after-write and list-after-write across gateways.
	if _, err := g1.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(scaleBucket)}); err != nil {
		t.Fatalf("CreateBucket through gateway 1: %v", err)
	}
	for _, g := range gws[1:] {
		if _, err := g.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(scaleBucket)}); err != nil {
			t.Fatalf("HeadBucket through %s right after CreateBucket through gateway 1: %v", g.name, err)
		}
	}
	first := []byte("written through gateway 1\n")
	checkEverywhere := func(key string, want []byte, writer string, readers ...*scaleGateway) {
		t.Helper()
		for _, g := range readers {
			got, _, err := getBytes(ctx, g.client, scaleBucket, key)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s read through %s right after its write through %s: %q, %v; want %q", key, g.name, writer, got, err, want)
			}
			out, err := g.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(scaleBucket), Prefix: aws.String(key)})
			if err != nil || len(out.Contents) != 1 || aws.ToString(out.Contents[0].Key) != key || aws.ToInt64(out.Contents[0].Size) != int64(len(want)) {
				t.Fatalf("listing %s through %s right after its write through %s: %+v, %v", key, g.name, writer, out, err)
			}
		}
	}
	put := func(g *scaleGateway, key string, body []byte) {
		t.Helper()
		if _, err := g.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(scaleBucket), Key: aws.String(key), Body: bytes.NewReader(body)}); err != nil {
			t.Fatalf("PutObject %s through %s: %v", key, g.name, err)
		}
	}
	put(g1, "raw/doc.txt", first)
	checkEverywhere("raw/doc.txt", first, g1.name, g2, g3)
	second := []byte("overwritten through gateway 3, longer than the first\n")
	put(g3, "raw/doc.txt", second)
	checkEverywhere("raw/doc.txt", second, g3.name, g1, g2)

	scaleAdmin(t, bin, root, gws)
	winners, preconds := scaleRace(t, gws)
	k := scaleKill(t, gws, cli)

	// Gateway 2 restarted on the same root and catalogue serves what the
	// others wrote, and what it writes is served by them.
	g2.start()
	for w, n := range k.done {
		for i := range n {
			if got, _, err := getBytes(ctx, g2.client, scaleBucket, scaleKey(w, i)); err != nil || !bytes.Equal(got, scaleBody(w, i)) {
				t.Fatalf("acknowledged %s through the restarted %s: %d bytes, %v; want its %d bytes", scaleKey(w, i), g2.name, len(got), err, len(scaleBody(w, i)))
			}
		}
	}
	after := []byte("written through gateway 2 after its restart\n")
	put(g2, "raw/restarted.txt", after)
	checkEverywhere("raw/restarted.txt", after, g2.name, g1, g3)
	checkEverywhere("raw/doc.txt", second, g3.name, g2)
	for _, g := range []*scaleGateway{g1, g3} {
		if lines := g.errorLines(); len(lines) > 0 {
			t.Errorf("%s logged errors:\n%s", g.name, strings.Join(lines, "\n"))
		}
	}
	t.Logf("scale-out: 3 gateways, one root, PostgreSQL catalogue over TCP, nginx round-robin: %d acknowledged writes in the kill -9 phase, %d lost; %d writes in flight through gateway 2 at its kill, %d of them landed whole, none torn; %d racing If-None-Match writers: %d × 200, %d × 412 PreconditionFailed; %v",
		k.acked, k.lost, k.inflight, k.landed, scaleRacers, winners, preconds, time.Since(began).Round(time.Millisecond))
}

// scaleCLI drives the AWS CLI through nginx: mb, cp up (a small file and a
// multipart upload), ls, cp down and compare, rm, rb; and checks through
// each gateway's own client that the removals show everywhere.
func scaleCLI(t *testing.T, cli *awsCLI, gws []*scaleGateway) {
	t.Helper()
	dir := t.TempDir()
	small := []byte("a small object, uploaded through nginx\n")
	big := make([]byte, scaleBig)
	for i := range big {
		big[i] = byte(i*7 + i>>13)
	}
	files := map[string][]byte{"small.txt": small, "dir/big.bin": big}
	for key, data := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(key)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cli.run("s3", "mb", "s3://"+cliBucket)
	cli.run("s3", "cp", filepath.Join(dir, "small.txt"), "s3://"+cliBucket+"/small.txt")
	cli.run("s3", "cp", filepath.Join(dir, "big.bin"), "s3://"+cliBucket+"/dir/big.bin")

	// One nginx worker and equal weights make round-robin cyclic, so the
	// upload's five requests (create, three parts, complete) reach the
	// three gateways in turn: the fifth is not where the first was.
	var created, completed []string
	parts := map[string]int{}
	for _, g := range gws {
		if g.served("CreateMultipartUpload", "dir/big.bin", 200) > 0 {
			created = append(created, g.name)
		}
		if g.served("CompleteMultipartUpload", "dir/big.bin", 200) > 0 {
			completed = append(completed, g.name)
		}
		if n := g.served("UploadPart", "dir/big.bin", 200); n > 0 {
			parts[g.name] = n
		}
	}
	nparts := 0
	for _, n := range parts {
		nparts += n
	}
	if len(created) != 1 || len(completed) != 1 || created[0] == completed[0] || nparts != 3 || len(parts) < 2 {
		t.Fatalf("the CLI's multipart upload through nginx: created on %v, completed on %v, parts %v; want one creation and one completion on different gateways and 3 parts on at least two", created, completed, parts)
	}
	t.Logf("the CLI's 20 MiB upload through nginx: created on %s, parts %v, completed on %s", created[0], parts, completed[0])

	listing := cli.run("s3", "ls", "--recursive", "s3://"+cliBucket)
	for key, data := range files {
		found := false
		for _, line := range strings.Split(listing, "\n") {
			f := strings.Fields(line)
			found = found || len(f) == 4 && f[3] == key && f[2] == strconv.Itoa(len(data))
		}
		if !found {
			t.Fatalf("s3 ls --recursive through nginx does not list %s with its %d bytes:\n%s", key, len(data), listing)
		}
	}
	for key, data := range files {
		down := filepath.Join(dir, "down-"+filepath.Base(key))
		cli.run("s3", "cp", "s3://"+cliBucket+"/"+key, down)
		got, err := os.ReadFile(down)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s downloaded through nginx: %d bytes, %v; want the %d uploaded", key, len(got), err, len(data))
		}
		cli.run("s3", "rm", "s3://"+cliBucket+"/"+key)
	}
	cli.run("s3", "rb", "s3://"+cliBucket)
	for _, g := range gws {
		_, err := g.client.HeadBucket(context.Background(), &s3.HeadBucketInput{Bucket: aws.String(cliBucket)})
		var nf *s3types.NotFound
		if !errors.As(err, &nf) {
			t.Fatalf("HeadBucket %s through %s after s3 rm and rb through nginx: %v, want NotFound", cliBucket, g.name, err)
		}
	}
}

// scaleRace releases scaleRacers conditional writers of one key together,
// a third through each gateway, and returns how many won and how many
// were refused with 412 PreconditionFailed (the test fails unless that is
// exactly one and the rest).
func scaleRace(t *testing.T, gws []*scaleGateway) (winners, preconds int) {
	t.Helper()
	const key = "race/once"
	ctx := context.Background()
	bodies := make([][]byte, scaleRacers)
	errs := make([]error, scaleRacers)
	etags := make([]string, scaleRacers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range scaleRacers {
		g := gws[i%len(gws)]
		bodies[i] = bytes.Repeat([]byte(fmt.Sprintf("racer %02d through %s\n", i, g.name)), 100+i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out, err := g.client.PutObject(ctx, &s3.PutObjectInput{
				Bucket: aws.String(scaleBucket), Key: aws.String(key),
				Body: bytes.NewReader(bodies[i]), IfNoneMatch: aws.String("*"),
			})
			errs[i] = err
			if err == nil {
				etags[i] = aws.ToString(out.ETag)
			}
		}()
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		if err == nil {
			winners++
			winner = i
			continue
		}
		var apiErr smithy.APIError
		var respErr *awshttp.ResponseError
		if errors.As(err, &apiErr) && apiErr.ErrorCode() == "PreconditionFailed" &&
			errors.As(err, &respErr) && respErr.HTTPStatusCode() == http.StatusPreconditionFailed {
			preconds++
			continue
		}
		t.Errorf("racer %d through %s: %v, want success or 412 PreconditionFailed", i, gws[i%len(gws)].name, err)
	}
	if winners != 1 || preconds != scaleRacers-1 {
		t.Fatalf("%d racing If-None-Match: * writers: %d succeeded, %d got 412 PreconditionFailed; want 1 and %d", scaleRacers, winners, preconds, scaleRacers-1)
	}
	for _, g := range gws {
		got, etag, err := getBytes(ctx, g.client, scaleBucket, key)
		if err != nil || !bytes.Equal(got, bodies[winner]) || etag != etags[winner] {
			t.Fatalf("%s through %s: %d bytes (ETag %s), %v; want racer %d's %d bytes (ETag %s)", key, g.name, len(got), etag, err, winner, len(bodies[winner]), etags[winner])
		}
	}
	return winners, preconds
}

// killResult is what scaleKill saw.
type killResult struct {
	// done[w] is how many of writer w's PUTs were acknowledged: its keys
	// 0..done[w]-1.
	done []int
	// acked counts the acknowledged writes, lost those that did not read
	// back, inflight the writes through gateway 2 that its kill cut, and
	// landed those of them that were there (whole) afterwards.
	acked, lost, inflight, landed int
}

// scaleKill runs writers through gateways 1 and 2, kills gateway 2 with
// SIGKILL once scaleKillAfter writes are acknowledged, and checks through
// gateways 1 and 3 (and through nginx, with gateway 2 dead) that every
// acknowledged write is there.
func scaleKill(t *testing.T, gws []*scaleGateway, cli *awsCLI) killResult {
	t.Helper()
	g1, g2, g3 := gws[0], gws[1], gws[2]
	ctx := context.Background()
	var acked, lost, landed int
	// failed[w] is the PUT of writer w that failed (-1: none) and
	// failure its error.
	done := make([]int, scaleWriters)
	failed := make([]int, scaleWriters)
	failure := make([]error, scaleWriters)
	var total atomic.Int64
	kill := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for w := range scaleWriters {
		g := gws[w%2] // even writers through gateway 1, odd ones through gateway 2
		failed[w] = -1
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range scalePuts {
				_, err := g.client.PutObject(ctx, &s3.PutObjectInput{
					Bucket: aws.String(scaleBucket), Key: aws.String(scaleKey(w, i)), Body: bytes.NewReader(scaleBody(w, i)),
				})
				if err != nil {
					failed[w], failure[w] = i, err
					return
				}
				done[w] = i + 1
				if total.Add(1) == scaleKillAfter {
					once.Do(func() { close(kill) })
				}
			}
		}()
	}
	writersDone := make(chan struct{})
	go func() { wg.Wait(); close(writersDone) }()
	select {
	case <-kill:
		g2.kill()
	case <-writersDone:
		t.Fatalf("the writers stopped after %d acknowledged writes, before the kill at %d: %v", total.Load(), scaleKillAfter, failure)
	}
	<-writersDone

	var inflightKeys []string
	for w := range scaleWriters {
		acked += done[w]
		if w%2 == 0 {
			if failure[w] != nil {
				t.Errorf("writer %d through %s: PUT %s: %v", w, g1.name, scaleKey(w, failed[w]), failure[w])
			}
			continue
		}
		if failure[w] == nil {
			t.Errorf("writer %d through the killed %s: all %d PUTs acknowledged", w, g2.name, scalePuts)
			continue
		}
		if !isConnError(failure[w]) {
			t.Errorf("writer %d through the killed %s: PUT %s: %v, want a connection error", w, g2.name, scaleKey(w, failed[w]), failure[w])
		}
		inflightKeys = append(inflightKeys, scaleKey(w, failed[w]))
	}
	// The dead gateway refuses connections; it never answers.
	_, err := g2.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(scaleBucket), Key: aws.String("kill/after"), Body: strings.NewReader("x")})
	if !isConnError(err) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("PUT through %s after its kill: %v, want connection refused", g2.name, err)
	}
	if t.Failed() {
		t.FailNow()
	}

	// Every acknowledged write reads back whole through both survivors.
	for w := range scaleWriters {
		for i := range done[w] {
			for _, g := range []*scaleGateway{g1, g3} {
				got, _, err := getBytes(ctx, g.client, scaleBucket, scaleKey(w, i))
				if err != nil || !bytes.Equal(got, scaleBody(w, i)) {
					lost++
					t.Errorf("acknowledged %s through %s: %d bytes, %v; want its %d bytes", scaleKey(w, i), g.name, len(got), err, len(scaleBody(w, i)))
				}
			}
		}
	}
	// The listing holds every acknowledged key with its size, and nothing
	// but those and the writes in flight.
	listed := map[string]int64{}
	p := s3.NewListObjectsV2Paginator(g3.client, &s3.ListObjectsV2Input{Bucket: aws.String(scaleBucket), Prefix: aws.String("kill/")})
	for pages := 0; p.HasMorePages(); pages++ {
		if pages > scaleWriters*scalePuts/1000+2 {
			t.Fatalf("listing kill/ through %s: more pages than keys written", g3.name)
		}
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatalf("listing kill/ through %s: %v", g3.name, err)
		}
		for _, o := range out.Contents {
			listed[aws.ToString(o.Key)] = aws.ToInt64(o.Size)
		}
	}
	for w := range scaleWriters {
		for i := range done[w] {
			if size, ok := listed[scaleKey(w, i)]; !ok || size != int64(len(scaleBody(w, i))) {
				t.Errorf("acknowledged %s listed through %s: %v with size %d, want size %d", scaleKey(w, i), g3.name, ok, size, len(scaleBody(w, i)))
			}
			delete(listed, scaleKey(w, i))
		}
	}
	// A write in flight at the kill is there whole or not at all, and
	// holds no lock: the key takes a new write through a survivor.
	for _, key := range inflightKeys {
		delete(listed, key)
		var w, i int
		fmt.Sscanf(key, "kill/w%d/%d", &w, &i)
		got, _, err := getBytes(ctx, g1.client, scaleBucket, key)
		var nsk *s3types.NoSuchKey
		switch {
		case err == nil && bytes.Equal(got, scaleBody(w, i)):
			landed++
		case errors.As(err, &nsk):
		default:
			t.Errorf("%s, in flight through %s at its kill: %d bytes, %v; want its %d bytes or NoSuchKey", key, g2.name, len(got), err, len(scaleBody(w, i)))
		}
		if _, err := g1.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(scaleBucket), Key: aws.String(key), Body: bytes.NewReader(scaleBody(w, i))}); err != nil {
			t.Errorf("PUT %s through %s after %s died with it in flight: %v", key, g1.name, g2.name, err)
		}
	}
	for key := range listed {
		t.Errorf("%s listed through %s but never written", key, g3.name)
	}

	// nginx passes requests on from the dead gateway to the others.
	dir := t.TempDir()
	note := []byte("uploaded through nginx with gateway 2 dead\n")
	if err := os.WriteFile(filepath.Join(dir, "note.txt"), note, 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		key := "after-kill/note-" + strconv.Itoa(i) + ".txt"
		cli.run("s3", "cp", filepath.Join(dir, "note.txt"), "s3://"+scaleBucket+"/"+key)
		if got, _, err := getBytes(ctx, g3.client, scaleBucket, key); err != nil || !bytes.Equal(got, note) {
			t.Fatalf("%s, uploaded through nginx with %s dead, read through %s: %q, %v", key, g2.name, g3.name, got, err)
		}
	}
	t.Logf("kill -9 of %s after %d acknowledged writes: the writes through it failed with %v", g2.name, scaleKillAfter, failure[1])
	return killResult{done: done, acked: acked, lost: lost, inflight: len(inflightKeys), landed: landed}
}

// scaleAdmin adds a user with the user command, which reaches one of the
// gateways through its own control socket (each gateway of a shared
// catalogue has one), and checks that the new user's keys work through
// every gateway at once: users live in the shared catalogue.
func scaleAdmin(t *testing.T, bin, root string, gws []*scaleGateway) {
	t.Helper()
	cmd := exec.Command(bin, "user", "add", "scaleuser", "--root", root, "--access-key", "SCALEUSERKEY0001")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("user add with three gateways serving the root: %v\n%s", err, out)
	}
	var secret string
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "secret key: "); ok {
			secret = v
		}
	}
	if secret == "" {
		t.Fatalf("user add printed no secret:\n%s", out)
	}
	ctx := context.Background()
	for _, g := range gws {
		c := s3.NewFromConfig(aws.Config{
			Region:      "us-east-1",
			Credentials: awscreds.NewStaticCredentialsProvider("SCALEUSERKEY0001", secret, ""),
			Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
		}, func(o *s3.Options) {
			o.BaseEndpoint = aws.String("http://" + g.addr)
			o.UsePathStyle = true
		})
		if _, err := c.ListBuckets(ctx, &s3.ListBucketsInput{}); err != nil {
			t.Fatalf("the user added through a control socket, through %s: %v", g.name, err)
		}
	}
}
