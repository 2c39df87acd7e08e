#!/usr/bin/env bash
# miss-compare.sh — server CPU per cache miss: the edge (this tree), nginx
# proxy_cache and, with BASE_BIN, a second edge binary, in one run.
#
# Starts on 127.0.0.1 free ports, everything in one temporary directory
# (removed on exit): an origin ObjectGateway with ROUNDS × PER objects of
# SIZE bytes (put with curl's SigV4, public-read, Cache-Control max-age),
# nginx proxy_cache as bench/edge-compare.sh runs it (bench/nginx-cache.sh),
# and the edge (serve --upstream … --edge-public). Each round GETs PER keys no
# cache has seen through each cache in turn, the order rotating from
# round to round, CONNS at a time over keep-alive connections (curl
# --parallel): every GET is a miss. For each round and cache it prints the
# cache's server CPU per miss (its processes' /proc/PID/task/*/schedstat)
# and the origin's, then the median of the rounds and of the per-round
# ratios to nginx.
#
# Environment (all optional):
#   SIZE      object size in bytes (default 102400)
#   ROUNDS    rounds (default 10)
#   PER       GETs per round and cache (default 500)
#   CONNS     concurrent GETs (default 20)
#   BASE_BIN  a second objectgateway binary, run as another edge (og-base)
#   WORK_IN   directory in which the temporary directory is made (default
#             /tmp): e.g. a freshly made ext4, as a cache disk is
#
# Needs curl ≥ 7.75 (--aws-sigv4) and nginx (installed with apt-get when
# missing and run as root).
set -euo pipefail

cd "$(dirname "$0")/.."
# shellcheck source=bench/nginx-cache.sh
source bench/nginx-cache.sh
SIZE=${SIZE:-102400}
ROUNDS=${ROUNDS:-10}
PER=${PER:-500}
CONNS=${CONNS:-20}

log() { printf '[miss-compare %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
# shellcheck source=bench/lib.sh
source bench/lib.sh

if [[ ! -x /usr/sbin/nginx ]]; then
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
		log "installing nginx"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
	else
		log "nginx is missing and cannot be installed (not root, or no apt-get)"
		exit 1
	fi
fi
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}

WORK=$(mktemp -d "${WORK_IN:-/tmp}/miss-compare.XXXXXX")
chmod 755 "$WORK"
declare -A PID=()
cleanup() {
	local rc=$?
	for name in "${!PID[@]}"; do kill -TERM "${PID[$name]}" 2>/dev/null || true; done
	for name in "${!PID[@]}"; do wait "${PID[$name]}" 2>/dev/null || true; done
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

BIN=$WORK/objectgateway
log "building $BIN"
"$GO" build -o "$BIN" ./cmd/objectgateway
export OBJECTGATEWAY_ACCESS_KEY=missbench
OBJECTGATEWAY_SECRET_KEY=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
export OBJECTGATEWAY_SECRET_KEY

# --- origin and objects -----------------------------------------------------------
OPORT=$(free_port)
"$BIN" serve --root "$WORK/origin" --listen "127.0.0.1:$OPORT" --log-level warn >"$WORK/origin.log" 2>&1 &
PID[origin]=$!
wait_http "http://127.0.0.1:$OPORT/" "${PID[origin]}"
ORIGIN=http://127.0.0.1:$OPORT
sign=(--aws-sigv4 "aws:amz:us-east-1:s3" --user "$OBJECTGATEWAY_ACCESS_KEY:$OBJECTGATEWAY_SECRET_KEY"
	-H "x-amz-content-sha256: UNSIGNED-PAYLOAD")
curl -sf "${sign[@]}" -X PUT "$ORIGIN/missb" >/dev/null
N=$((ROUNDS * PER))
head -c "$SIZE" /dev/urandom >"$WORK/object"
log "putting $N objects of $SIZE bytes"
{
	for i in $(seq 0 $((N - 1))); do
		printf 'url = "%s/missb/m%d"\nupload-file = "%s"\noutput = "/dev/null"\n' "$ORIGIN" "$i" "$WORK/object"
	done
} >"$WORK/put.cfg"
curl -sf -Z --parallel-max 8 "${sign[@]}" -H "x-amz-acl: public-read" \
	-H "Cache-Control: public, max-age=36000" -K "$WORK/put.cfg"

# --- caches ----------------------------------------------------------------------
NPORT=$(free_port)
mkdir -p "$WORK/nginx/cache"
nginx_cache_conf "$WORK/nginx" "$OPORT" "$NPORT" 16 >"$WORK/nginx/nginx.conf"
/usr/sbin/nginx -p "$WORK/nginx" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' >"$WORK/nginx.log" 2>&1 &
PID[nginx]=$!
wait_http "http://127.0.0.1:$NPORT/" "${PID[nginx]}"

declare -A PORT=([nginx]=$NPORT)
start_edge() { # start_edge NAME BINARY
	local port
	port=$(free_port)
	"$2" serve --root "$WORK/$1" --listen "127.0.0.1:$port" --upstream "$ORIGIN" \
		--cache-size 16GiB --cache-memory 256MiB --edge-public --log-level warn >"$WORK/$1.log" 2>&1 &
	PID[$1]=$!
	PORT[$1]=$port
	wait_http "http://127.0.0.1:$port/" "${PID[$1]}"
}
start_edge og "$BIN"
NAMES=(nginx og)
if [[ -n ${BASE_BIN:-} ]]; then
	start_edge og-base "$BASE_BIN"
	NAMES+=(og-base)
fi
log "kernel $(uname -r), TCP congestion control $(cat /proc/sys/net/ipv4/tcp_congestion_control 2>/dev/null)"
log "origin :$OPORT, $(for n in "${NAMES[@]}"; do printf '%s :%s  ' "$n" "${PORT[$n]}"; done)"

# --- rounds ----------------------------------------------------------------------
pids_of() { # the cache's processes: nginx's master and workers
	echo "${PID[$1]}"
	if [[ $1 == nginx ]]; then pgrep -P "${PID[nginx]}" || true; fi
}
cpu_ns() { # summed run time of the processes' threads, ns
	local t=0 p f x rest
	for p in "$@"; do
		for f in /proc/"$p"/task/*/schedstat; do
			read -r x rest <"$f" 2>/dev/null || continue
			t=$((t + x))
		done
	done
	echo "$t"
}
declare -A US=() OUS=()
n=${#NAMES[@]}
for r in $(seq 0 $((ROUNDS - 1))); do
	for k in $(seq 0 $((n - 1))); do
		name=${NAMES[$(((k + r) % n))]}
		url="http://127.0.0.1:${PORT[$name]}/missb/m"
		mapfile -t ps < <(pids_of "$name")
		for i in $(seq $((r * PER)) $((r * PER + PER - 1))); do
			printf 'url = "%s%d"\noutput = "/dev/null"\n' "$url" "$i"
		done >"$WORK/get.cfg"
		c0=$(cpu_ns "${ps[@]}")
		o0=$(cpu_ns "${PID[origin]}")
		codes=$(curl -s --no-progress-meter -Z --parallel-immediate --parallel-max "$CONNS" -w '%{http_code}\n' -K "$WORK/get.cfg" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')
		c1=$(cpu_ns "${ps[@]}")
		o1=$(cpu_ns "${PID[origin]}")
		us=$(((c1 - c0) / 1000 / PER))
		ous=$(((o1 - o0) / 1000 / PER))
		US[$name]+="$us "
		OUS[$name]+="$ous "
		printf 'round %2d  %-8s server %5d µs/miss  origin %5d µs/miss  statuses: %s\n' "$r" "$name" "$us" "$ous" "$codes"
	done
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END{if (NR) printf "%.3f", (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }
echo
echo "median of $ROUNDS rounds, $PER misses of $SIZE bytes each, $CONNS at a time:"
for name in "${NAMES[@]}"; do
	ratios=$(paste -d' ' <(tr ' ' '\n' <<<"${US[$name]}" | grep .) <(tr ' ' '\n' <<<"${US[nginx]}" | grep .) |
		awk '$2 > 0 {printf "%.4f ", $1/$2}')
	printf '  %-8s server %s µs/miss (÷ nginx, median of the rounds: %s)  origin %s µs/miss\n' \
		"$name" "$(median <<<"${US[$name]}")" "$(median <<<"$ratios")" "$(median <<<"${OUS[$name]}")"
done
