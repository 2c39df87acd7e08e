#!/usr/bin/env bash
# sse-throughput.sh — single-stream 100 MiB GET and PUT of SSE-S3 and
# plain objects over loopback, against the in-process ceilings, in one run
# (issue 13, "Performance"; docs/performance.md, "Encrypted objects").
#
# Builds the test binary of ./api from this tree (and, with BASE=REV, from
# git revision REV with this tree's api/get_sse_loopback_bench_test.go
# copied in), then for ROUNDS rounds, alternating the binaries, runs
# BenchmarkSSELoopback (-benchtime BENCHTIME): GET plain, GET SSE-S3, the
# AES-256-GCM and sio ceilings, PUT plain, PUT SSE-S3, the encrypt+MD5
# ceiling, each sub-benchmark once per round. It prints every round's
# lines and then, per binary and sub-benchmark, the median MB/s and the
# median process CPU (ms per 100 MiB; the server's for the HTTP rows),
# with the ratios to the ceilings of the same binary's rounds: of the
# medians, and the median of each round's ratio (the ceiling itself moves
# by 1.5× between rounds on a shared machine).
#
# Environment (all optional):
#   ROUNDS     rounds (default 5)
#   BENCHTIME  -benchtime of each sub-benchmark (default 4x)
#   FILTER     sub-benchmarks to run (default all: GET|PUT)
#   BASE       git revision to build and measure as "base"
#
# Needs curl. The machine's load moves wall-clock figures by 2× between
# rounds; the CPU columns move far less.
set -euo pipefail

cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
BENCHTIME=${BENCHTIME:-4x}
FILTER=${FILTER:-GET|PUT}
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
WORK=$(mktemp -d /tmp/sse-throughput.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

log() { printf '%s sse-throughput: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

log "building the test binary"
"$GO" test -c -o "$WORK/gw.test" ./api
bins=(gw)
if [[ -n ${BASE:-} ]]; then
	log "building $BASE"
	mkdir "$WORK/base-src"
	git archive "$BASE" | tar -x -C "$WORK/base-src"
	cp api/get_sse_loopback_bench_test.go "$WORK/base-src/api/"
	(cd "$WORK/base-src" && "$GO" test -c -o "$WORK/base.test" ./api)
	bins+=(base)
fi

for ((r = 1; r <= ROUNDS; r++)); do
	for bin in "${bins[@]}"; do
		(cd "$WORK" && "./$bin.test" -test.run '^$' -test.bench "SSELoopback/($FILTER)" \
			-test.benchtime "$BENCHTIME") | grep '^BenchmarkSSELoopback' | sed "s/^/$bin $r /" | tee -a "$WORK/all"
	done
done

# Lines: BIN ROUND NAME N ns/op-value ns/op MB/s-value MB/s metric-value metric ...
# The HTTP rows' speed is wire-MB/s: the bytes over the client's own time
# for the transfer (curl's time_total, the Go client's clock), which
# leaves out starting the client process; the ceilings' is MB/s.
awk '
function median(key,   n, i, j, t, a) {
	n = split(samples[key], a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	name = $3; sub(/^BenchmarkSSELoopback\//, "", name); sub(/-[0-9]+$/, "", name)
	k = $1 " " name
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	wire = ""
	for (i = 5; i < NF; i += 2) {
		if ($(i + 1) == "MB/s") mbs = $i
		if ($(i + 1) == "wire-MB/s") wire = $i
		if ($(i + 1) == "cpu-ms/op") samples[k " cpu"] = samples[k " cpu"] " " $i
		if ($(i + 1) == "client-cpu-ms/op") samples[k " ccpu"] = samples[k " ccpu"] " " $i
	}
	speed = wire != "" ? wire : mbs
	samples[k " mbs"] = samples[k " mbs"] " " speed
	# The ratio of each round to the same binary'"'"'s ceiling in that round.
	rk = $1 " " $2 " " name
	rs[rk] = speed
}
END {
	for (rk in rs) {
		split(rk, p, " ")
		if (p[3] ~ /ceiling/) continue
		ceil = p[3] ~ /^GET/ ? "GET/ceiling-aes-gcm" : "PUT/ceiling-encrypt-md5"
		c = rs[p[1] " " p[2] " " ceil]
		if (c) samples[p[1] " " p[3] " ratio"] = samples[p[1] " " p[3] " ratio"] " " rs[rk] / c
	}
	printf "\n%-30s %10s %10s %12s %14s %14s\n", "median", "MB/s", "cpu-ms/op", "client-cpu", "MB/s÷ceiling", "per-round ÷"
	for (i = 1; i <= nk; i++) {
		k = order[i]; split(k, p, " ")
		ceil = p[2] ~ /^GET/ ? p[1] " GET/ceiling-aes-gcm" : p[1] " PUT/ceiling-encrypt-md5"
		m = median(k " mbs"); c = median(k " cpu"); cm = median(ceil " mbs")
		cc = samples[k " ccpu"] != "" ? sprintf("%.1f", median(k " ccpu")) : "-"
		r = samples[k " ratio"] != "" ? sprintf("%.2f", median(k " ratio")) : "-"
		printf "%-30s %10.1f %10.1f %12s %14.2f %14s\n", k, m, c, cc, cm ? m / cm : 0, r
	}
}' "$WORK/all"
