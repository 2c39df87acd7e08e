#!/usr/bin/env bash
# version-put-syscalls.sh — the file-system system calls of a PUT that
# overwrites a key, in an unversioned bucket and in a bucket with
# versioning Enabled (where the overwrite keeps the old bytes as a
# noncurrent version), counted with strace on the gateway process.
#
# Builds cmd/objectgateway from this tree (or takes $OG), starts it on a
# free 127.0.0.1 port with --fsync=true in a temporary directory removed on
# exit, creates bucket "plain" and bucket "vers" (versioning Enabled),
# stores one 1 KiB object "obj" in each, then for each bucket attaches
# `strace -f -y` to the gateway, waits until every thread is traced, sends
# N overwriting PUTs of "obj" with curl (SigV4), detaches, and prints the
# calls per PUT: link/rename family, openat, and fsync/fdatasync split by
# what the descriptor named at the call: a directory, the catalogue
# (index.db), or a file of object data. Any PUT that does not answer 200
# fails the run.
#
# Environment (all optional): N (default 20), OG (a built binary), KEEP
# (a directory to copy the two strace logs into).
set -euo pipefail

cd "$(dirname "$0")/.."
N=${N:-20}
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
log() { printf '%s version-put-syscalls: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
command -v strace >/dev/null || { log "needs strace (apt-get install strace)"; exit 1; }

WORK=$(mktemp -d /tmp/version-put-syscalls.XXXXXX)
GW=''
cleanup() {
	local rc=$?
	[[ -n $GW ]] && kill -TERM "$GW" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ -z ${OG:-} ]]; then
	log "building the gateway"
	"$GO" build -o "$WORK/og" ./cmd/objectgateway
	OG=$WORK/og
fi
KEY=syscalls SECRET=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
EP=http://127.0.0.1:$port
OBJECTGATEWAY_ACCESS_KEY=$KEY OBJECTGATEWAY_SECRET_KEY=$SECRET \
	"$OG" serve --root "$WORK/root" --listen "127.0.0.1:$port" --fsync=true --log-level warn >"$WORK/gw.log" 2>&1 &
GW=$!
for _ in $(seq 200); do
	[[ $(curl -s -o /dev/null -w '%{http_code}' "$EP/" || true) != 000 ]] && break
	sleep 0.1
done

s3() { # s3 METHOD PATH [curl args…]: a signed request; fails unless 200
	local method=$1 path=$2 code
	shift 2
	code=$(curl -s -o "$WORK/answer" -w '%{http_code}' --aws-sigv4 "aws:amz:us-east-1:s3" -u "$KEY:$SECRET" \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -X "$method" "$@" "$EP$path")
	if [[ $code != 200 ]]; then
		log "$method $path answered $code: $(cat "$WORK/answer")"
		return 1
	fi
}
head -c 1024 /dev/urandom >"$WORK/obj"
s3 PUT /plain
s3 PUT /vers
s3 PUT '/vers?versioning=' --data-binary \
	'<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>'
s3 PUT /plain/obj --data-binary "@$WORK/obj"
s3 PUT /vers/obj --data-binary "@$WORK/obj"

# traced BUCKET: strace's log of N overwriting PUTs of BUCKET/obj.
traced() {
	local bucket=$1 st task
	strace -f -y -qq -e trace=link,linkat,rename,renameat,renameat2,fsync,fdatasync,openat \
		-o "$WORK/$bucket.trace" -p "$GW" &
	st=$!
	# Readiness: every thread of the gateway shows a tracer.
	for _ in $(seq 200); do
		task=$(grep -L 'TracerPid:[[:space:]]*[1-9]' /proc/"$GW"/task/*/status 2>/dev/null || true)
		[[ -z $task ]] && break
		sleep 0.05
	done
	for ((i = 0; i < N; i++)); do s3 PUT "/$bucket/obj" --data-binary "@$WORK/obj"; done
	kill -INT "$st"
	wait "$st" || true
}

# count BUCKET: the calls per PUT of BUCKET's trace.
count() {
	local f=$WORK/$1.trace
	awk -v n="$N" -v root="$WORK/root" '
		function kind(line,   p) {
			if (!match(line, /\(([0-9]+)<[^>]*>/)) return "?"
			p = substr(line, RSTART, RLENGTH); sub(/^\([0-9]+</, "", p); sub(/>$/, "", p)
			if (p ~ /index\.db$/ || p ~ /\.db$/) return "catalogue"
			if (system("test -d \"" p "\"") == 0) return "directory"
			return "data"
		}
		/resumed>/ { next }
		match($0, /^[0-9]+ +(link|linkat|rename|renameat|renameat2|fsync|fdatasync|openat)\(/) {
			call = $2; sub(/\(.*/, "", call)
			if (call == "fsync" || call == "fdatasync") call = call "(" kind($0) ")"
			c[call]++
		}
		END { for (k in c) printf "  %-22s %6.2f per PUT (%d in %d PUTs)\n", k, c[k] / n, c[k], n }' "$f" | sort
}

for bucket in plain vers; do traced "$bucket"; done
for bucket in plain vers; do
	echo "$bucket ($([[ $bucket == vers ]] && echo 'versioning Enabled' || echo 'unversioned')), overwrite of a 1 KiB object:"
	count "$bucket"
done
[[ -n ${KEEP:-} ]] && cp "$WORK"/plain.trace "$WORK"/vers.trace "$KEEP"/
