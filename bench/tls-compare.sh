#!/usr/bin/env bash
# tls-compare.sh measures GETs over TLS: the gateway with --tls-self-signed
# against Go's own TLS file server (http.FileServer behind
# ListenAndServeTLS, same certificate, same files), with the gateway over
# plain HTTP (sendfile) as the copy-only reference. docs/performance.md
# has its figures.
#
# Each round fetches SMALL_N 1 KiB GETs and LARGE_N 100 MiB GETs from every
# endpoint with one curl process per batch (one keep-alive connection,
# HTTP/1.1, --cacert), the order of the endpoints reversed every other
# round so that noise on the machine hits all of them alike. It prints the
# median and p90 time per GET, the large GET's throughput, and the
# server's CPU time per GET read from /proc before and after each batch.
#
# Usage: bash bench/tls-compare.sh
#   ROUNDS=n (5)  SMALL_N=n (200)  LARGE_N=n (3)
set -euo pipefail
ROUNDS=${ROUNDS:-5}
SMALL_N=${SMALL_N:-200}
LARGE_N=${LARGE_N:-3}
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
AWS=/usr/bin/aws
PY=/usr/bin/python3
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tls-compare.XXXXXX")
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT
freeport() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

(cd "$REPO" && "$GO" build -o "$WORK/objectgateway" ./cmd/objectgateway)
mkdir -p "$WORK/fileserver"
cat >"$WORK/fileserver/main.go" <<'GO'
// Command fileserver is Go's own TLS file server: http.FileServer behind
// ListenAndServeTLS, HTTP/1.1 only like the gateway.
package main

import (
	"crypto/tls"
	"log"
	"net/http"
	"os"
)

func main() {
	srv := &http.Server{Addr: os.Args[1], Handler: http.FileServer(http.Dir(os.Args[2])),
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){}}
	log.Fatal(srv.ListenAndServeTLS(os.Args[3], os.Args[4]))
}
GO
(cd "$WORK/fileserver" && "$GO" mod init fileserver >/dev/null 2>&1 && "$GO" build -o "$WORK/fileserver-bin" .)

# The same two files under each gateway's root (imported at first start)
# and under the file server's directory.
for d in tls plain files; do mkdir -p "$WORK/$d/bench"; done
head -c 1024 /dev/urandom >"$WORK/files/bench/small.bin"
head -c $((100 << 20)) /dev/urandom >"$WORK/files/bench/large.bin"
cp "$WORK/files/bench/"* "$WORK/tls/bench/"
cp "$WORK/files/bench/"* "$WORK/plain/bench/"

export OBJECTGATEWAY_ACCESS_KEY=benchaccesskey OBJECTGATEWAY_SECRET_KEY=bench-secret-key-0123456789abcdef
export AWS_ACCESS_KEY_ID=$OBJECTGATEWAY_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$OBJECTGATEWAY_SECRET_KEY AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_EC2_METADATA_DISABLED=true
TLS_PORT=$(freeport) PLAIN_PORT=$(freeport) FS_PORT=$(freeport)
CA=$WORK/tls/.objectgateway/tls/cert.pem
"$WORK/objectgateway" serve --root "$WORK/tls" --listen "127.0.0.1:$TLS_PORT" --tls-self-signed --fsync=false --log-level warn >"$WORK/tls.log" 2>&1 &
TLS_PID=$!
PIDS+=("$TLS_PID")
"$WORK/objectgateway" serve --root "$WORK/plain" --listen "127.0.0.1:$PLAIN_PORT" --fsync=false --log-level warn >"$WORK/plain.log" 2>&1 &
PLAIN_PID=$!
PIDS+=("$PLAIN_PID")
wait_up() { # URL: bounded wait for any answer
	for _ in $(seq 1 100); do
		[[ -s "$CA" ]] && [[ $(curl -s --cacert "$CA" -o /dev/null --max-time 1 -w '%{http_code}' "$1" || true) != 000 ]] && return 0
		sleep 0.1
	done
	echo "no answer from $1" >&2
	exit 1
}
wait_up "https://127.0.0.1:$TLS_PORT/"
wait_up "http://127.0.0.1:$PLAIN_PORT/"
"$WORK/fileserver-bin" "127.0.0.1:$FS_PORT" "$WORK/files" "$CA" "$WORK/tls/.objectgateway/tls/key.pem" 2>"$WORK/fs.log" &
FS_PID=$!
PIDS+=("$FS_PID")
wait_up "https://127.0.0.1:$FS_PORT/"
# The standard public-read bucket policy lets curl GET the objects without
# credentials (the canned bucket ACL public-read would only let it list).
cat >"$WORK/policy.json" <<'JSON'
{"Version":"2012-10-17","Statement":[{"Sid":"PublicRead","Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::bench/*"}]}
JSON
timeout 60 "$AWS" --endpoint-url "https://127.0.0.1:$TLS_PORT" --ca-bundle "$CA" s3api put-bucket-policy --bucket bench --policy "file://$WORK/policy.json"
timeout 60 "$AWS" --endpoint-url "http://127.0.0.1:$PLAIN_PORT" s3api put-bucket-policy --bucket bench --policy "file://$WORK/policy.json"

declare -A URL=([gateway-tls]="https://127.0.0.1:$TLS_PORT" [go-fileserver-tls]="https://127.0.0.1:$FS_PORT" [gateway-plain]="http://127.0.0.1:$PLAIN_PORT")
declare -A PID=([gateway-tls]=$TLS_PID [go-fileserver-tls]=$FS_PID [gateway-plain]=$PLAIN_PID)
ORDER=(gateway-tls go-fileserver-tls gateway-plain)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# batch NAME FILE N: N GETs on one connection; appends each GET's seconds
# to NAME.FILE.times and the server's CPU ticks for the batch to .cpu.
batch() {
	local name=$1 file=$2 n=$3 args=() before after
	for _ in $(seq 1 "$n"); do args+=(-o /dev/null "${URL[$name]}/bench/$file"); done
	before=$(cpu "${PID[$name]}")
	timeout 600 curl --http1.1 -sS --fail --cacert "$CA" -w '%{time_total}\n' "${args[@]}" >>"$WORK/$name.$file.times"
	after=$(cpu "${PID[$name]}")
	echo "$((after - before)) $n" >>"$WORK/$name.$file.cpu"
}
for r in $(seq 1 "$ROUNDS"); do
	order=("${ORDER[@]}")
	((r % 2 == 0)) && order=(gateway-plain go-fileserver-tls gateway-tls)
	for name in "${order[@]}"; do
		batch "$name" small.bin "$SMALL_N"
		batch "$name" large.bin "$LARGE_N"
	done
done

echo "$(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), rounds=$ROUNDS small_n=$SMALL_N large_n=$LARGE_N"
"$PY" - "$WORK" "${ORDER[@]}" <<'PY'
import os, statistics, sys
work, names = sys.argv[1], sys.argv[2:]
tick = os.sysconf("SC_CLK_TCK")
def times(n, f): return sorted(float(x) for x in open(f"{work}/{n}.{f}.times"))
def cpu(n, f):
    t = c = 0
    for line in open(f"{work}/{n}.{f}.cpu"):
        a, b = line.split(); t += int(a); c += int(b)
    return t / tick / c
def p90(v): return v[int(0.9 * (len(v) - 1))]
base = {f: statistics.median(times(names[1], f)) for f in ("small.bin", "large.bin")}
print(f"{'endpoint':<20} {'1KiB median':>12} {'p90':>9} {'x fs':>6} {'cpu/GET':>9} | {'100MiB median':>13} {'MiB/s':>7} {'x fs':>6} {'cpu/GET':>8}")
for n in names:
    s, l = times(n, "small.bin"), times(n, "large.bin")
    ms, ml = statistics.median(s), statistics.median(l)
    print(f"{n:<20} {ms*1e3:>10.3f}ms {p90(s)*1e3:>7.3f}ms {ms/base['small.bin']:>6.2f} {cpu(n,'small.bin')*1e6:>7.0f}us | "
          f"{ml:>12.3f}s {100/ml:>7.0f} {ml/base['large.bin']:>6.2f} {cpu(n,'large.bin'):>7.3f}s")
PY
