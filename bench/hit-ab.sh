#!/usr/bin/env bash
# hit-ab.sh — server CPU per edge cache hit, this tree against another
# binary, both under load at the same time (docs/performance.md, "Hits
# without the scheduler").
#
# On this shared 2-CPU machine, the CPU a server spends per request moves
# by ±10–20 % from one run to the next, more than the changes to be
# measured; endpoints measured in turn (bench/edge-compare.sh,
# bench/hit-floor.sh) each meet a different moment of the neighbours'
# load. Here both edges are loaded at once, each by its own
# `wrk -t1 -cCONNS` for DURATION, so that whatever slows one slows the
# other; each round gives the ratio of their CPU per request, and the
# median of the rounds' ratios is the result.
#
# Builds cmd/objectgateway from this tree (endpoint "new"), starts on free
# 127.0.0.1 ports, in one temporary directory removed on exit: an origin
# gateway holding one object per size (Cache-Control public), and two
# edges in front of it as bench/edge-compare.sh starts them (--edge-public,
# --cache-size 1GiB, --cache-memory 256MiB, --log-level warn): "base" from
# BASE_BIN, "new" from this tree, each warmed so that every measured GET is
# a hit (checked: X-Cache HIT, the object's bytes). Server CPU is the sum
# of the process's threads' run time (/proc/PID/task/*/schedstat, ns).
#
# Environment: BASE_BIN (required: the other objectgateway binary, e.g.
# built from an older commit); SIZES (32k,100k,1m; k = KiB, m = MiB;
# up to 48 KiB an object is served from the memory tier); ROUNDS (16);
# DURATION (2s); CONNS (50 per edge).
# Needs wrk, curl and the AWS CLI v2 (/usr/bin/aws).
set -euo pipefail

cd "$(dirname "$0")/.."
BASE_BIN=${BASE_BIN:?set BASE_BIN to the objectgateway binary to compare with}
SIZES=${SIZES:-32k,100k,1m}
ROUNDS=${ROUNDS:-16}
DURATION=${DURATION:-2s}
CONNS=${CONNS:-50}
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
AWS=${AWS:-/usr/bin/aws}
WORK=$(mktemp -d /tmp/hit-ab.XXXXXX)
declare -A PID URL
cleanup() {
	for p in "${PID[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
log() { printf '%s hit-ab: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
# shellcheck source=bench/lib.sh
source bench/lib.sh
bytes_of() { # 100k → 102400, 1m → 1048576
	local n=${1%[km]}
	case $1 in *k) echo $((n << 10)) ;; *m) echo $((n << 20)) ;; *) echo "$1" ;; esac
}
for tool in wrk curl "$AWS"; do
	command -v "$tool" >/dev/null || { log "missing $tool"; exit 1; }
done

log "building the gateway"
"$GO" build -o "$WORK/og" ./cmd/objectgateway
IFS=, read -ra sizes <<<"$SIZES"
mkdir -p "$WORK/files"
for s in "${sizes[@]}"; do
	head -c "$(bytes_of "$s")" /dev/urandom >"$WORK/files/o$s"
done

export OBJECTGATEWAY_ACCESS_KEY=hitab
OBJECTGATEWAY_SECRET_KEY=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
export OBJECTGATEWAY_SECRET_KEY AWS_ACCESS_KEY_ID=hitab AWS_SECRET_ACCESS_KEY=$OBJECTGATEWAY_SECRET_KEY AWS_DEFAULT_REGION=us-east-1
OPORT=$(free_port)
"$WORK/og" serve --root "$WORK/origin" --listen "127.0.0.1:$OPORT" --log-level warn >"$WORK/origin.log" 2>&1 &
PID[origin]=$!
wait_http "http://127.0.0.1:$OPORT/"
"$AWS" --endpoint-url "http://127.0.0.1:$OPORT" s3 mb s3://hitab >/dev/null
for s in "${sizes[@]}"; do
	"$AWS" --endpoint-url "http://127.0.0.1:$OPORT" s3 cp "$WORK/files/o$s" "s3://hitab/o$s" \
		--cache-control "public, max-age=36000" --acl public-read >/dev/null
done
for name in base new; do
	bin=$WORK/og
	[[ $name == base ]] && bin=$BASE_BIN
	port=$(free_port)
	"$bin" serve --root "$WORK/edge-$name" --listen "127.0.0.1:$port" --upstream "http://127.0.0.1:$OPORT" \
		--cache-size 1GiB --cache-memory 256MiB --edge-public --log-level warn >"$WORK/$name.log" 2>&1 &
	PID[$name]=$!
	URL[$name]=http://127.0.0.1:$port
	wait_http "${URL[$name]}/"
	for s in "${sizes[@]}"; do
		for _ in 1 2 3; do curl -s -o /dev/null "${URL[$name]}/hitab/o$s"; done
		if ! curl -s -o "$WORK/check" "${URL[$name]}/hitab/o$s" || ! cmp -s "$WORK/check" "$WORK/files/o$s"; then
			log "$name: GET /hitab/o$s did not answer the object"
			exit 1
		fi
		[[ $(curl -s -D - -o /dev/null "${URL[$name]}/hitab/o$s" | tr -d '\r' | awk -F': ' 'tolower($1) == "x-cache" {print $2}') == HIT ]] ||
			{ log "$name: /hitab/o$s is not a hit"; exit 1; }
	done
done

cpu_ns() { # the run time of all of a process's threads, ns
	local t=0 f a
	for f in /proc/"$1"/task/*/schedstat; do
		read -r a _ <"$f" || continue
		t=$((t + a))
	done
	echo "$t"
}
# round SIZE: both edges under wrk at once; prints base and new µs per
# request and new/base.
round() {
	local s=$1 b0 n0 b1 n1 rb rn
	b0=$(cpu_ns "${PID[base]}")
	n0=$(cpu_ns "${PID[new]}")
	wrk -t1 -c"$CONNS" -d"$DURATION" "${URL[base]}/hitab/o$s" >"$WORK/wrk.base" &
	local wb=$!
	wrk -t1 -c"$CONNS" -d"$DURATION" "${URL[new]}/hitab/o$s" >"$WORK/wrk.new" &
	local wn=$!
	wait "$wb" "$wn"
	b1=$(cpu_ns "${PID[base]}")
	n1=$(cpu_ns "${PID[new]}")
	for name in base new; do
		if grep -qE 'Non-2xx|Socket errors' "$WORK/wrk.$name"; then
			log "$name: wrk reported errors:"
			cat "$WORK/wrk.$name" >&2
			return 1
		fi
	done
	rb=$(awk '/requests in/ {print $1}' "$WORK/wrk.base")
	rn=$(awk '/requests in/ {print $1}' "$WORK/wrk.new")
	awk -v b="$((b1 - b0))" -v n="$((n1 - n0))" -v rb="$rb" -v rn="$rn" \
		'BEGIN { x = b / 1000 / rb; y = n / 1000 / rn; printf "%8.1f %8.1f %7.3f %8d %8d\n", x, y, y / x, rb, rn }'
}
echo "hit-ab.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs; new: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (modified)'); base: $BASE_BIN"
for s in "${sizes[@]}"; do
	wrk -t1 -c"$CONNS" -d1s "${URL[base]}/hitab/o$s" >/dev/null
	wrk -t1 -c"$CONNS" -d1s "${URL[new]}/hitab/o$s" >/dev/null
	printf '\n%-5s %-5s %8s %8s %7s %8s %8s   (server CPU µs per request)\n' size round base new new/base "req base" "req new"
	ratios=()
	for ((r = 1; r <= ROUNDS; r++)); do
		line=$(round "$s")
		printf '%-5s %-5s %s\n' "$s" "$r" "$line"
		ratios+=("$(awk '{print $3}' <<<"$line")")
	done
	printf '%s\n' "${ratios[@]}" | sort -g | awk -v s="$s" '{ a[NR] = $1; if ($1 < 1) below++ }
		END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		      printf "%-5s median new/base %.3f, %d of %d rounds below 1\n", s, m, below, NR }'
done
