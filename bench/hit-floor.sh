#!/usr/bin/env bash
# hit-floor.sh — server CPU per cache hit of one hot object, in one run:
# the edge mode against nginx serving the same file and against two Go
# file servers, one on net/http and one outside it (issue 19, "decide
# with measurements whether hits should be answered outside net/http";
# docs/performance.md, "Edge hits").
#
# Builds cmd/objectgateway from this tree, starts on free 127.0.0.1 ports,
# in one temporary directory removed on exit:
#   - nginx (worker_processes auto, sendfile, tcp_nodelay, no access log,
#     as bench/edge-compare.sh configures it) serving a directory of one
#     file per size;
#   - `objectgateway bench --serve-static DIR` (net/http, sendfile);
#   - `objectgateway bench --serve-static DIR --static-raw` (GET on raw
#     connections: one write of the header, sendfile of a descriptor kept
#     open, as the edge keeps its cached objects');
#   - an origin gateway holding the same files with Cache-Control public,
#     and an edge in front of it (--edge-public, --cache-memory 256MiB,
#     --log-level warn, as bench/edge-compare.sh starts it) with
#     --edge-fast-hits=false, every hit answered through net/http, warmed
#     with two GETs of each object, so that every measured GET is a hit;
#   - edge-fast: the same edge as it starts by default, hits answered on
#     the connection outside net/http (--edge-fast-hits);
# then for ROUNDS rounds, each size, endpoints in turn, `wrk -t2 -cCONNS`
# for WARMUP and then DURATION against one URL, and prints the server's
# utime+stime (/proc/PID/stat, nginx's master and worker summed) per
# request and wrk's p99 latency. Any non-2xx answer or socket error fails.
#
# Environment (all optional): ROUNDS (3), SIZES (100k,1m; k = KiB,
# m = MiB), CONNS (100), WARMUP (2s), DURATION (6s); KEEP=1 leaves the
# temporary directory and the servers running, to look into a failed run.
# Needs nginx, wrk, curl and the AWS CLI v2 (/usr/bin/aws).
set -euo pipefail

cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
SIZES=${SIZES:-100k,1m}
CONNS=${CONNS:-100}
WARMUP=${WARMUP:-2s}
DURATION=${DURATION:-6s}
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
AWS=${AWS:-/usr/bin/aws}
WORK=$(mktemp -d /tmp/hit-floor.XXXXXX)
chmod 755 "$WORK" # nginx's workers run as another user when started as root
declare -A PID URL
cleanup() {
	for p in "${PID[@]}"; do kill "$p" 2>/dev/null || true; done
	[[ -f $WORK/nginx.pid ]] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
[[ -n ${KEEP:-} ]] && trap - EXIT
log() { printf '%s hit-floor: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
# shellcheck source=bench/lib.sh
source bench/lib.sh
bytes_of() { # 100k → 102400, 1m → 1048576
	local n=${1%[km]}
	case $1 in *k) echo $((n << 10)) ;; *m) echo $((n << 20)) ;; *) echo "$1" ;; esac
}

log "building the gateway"
"$GO" build -o "$WORK/og" ./cmd/objectgateway
mkdir -p "$WORK/files/hitb"
IFS=, read -ra sizes <<<"$SIZES"
for s in "${sizes[@]}"; do
	head -c "$(bytes_of "$s")" /dev/urandom >"$WORK/files/hitb/o$s"
done

# nginx, serving $WORK/files.
NPORT=$(free_port)
mkdir -p "$WORK/nginx"
cat >"$WORK/nginx.conf" <<NGINX
worker_processes auto;
daemon on;
pid $WORK/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush off; # as bench/edge-compare.sh: on, 100 KiB answers wait ~40 ms for their last packet
  tcp_nodelay on;
  keepalive_requests 10000000;
  client_body_temp_path $WORK/nginx;
  proxy_temp_path $WORK/nginx;
  fastcgi_temp_path $WORK/nginx;
  uwsgi_temp_path $WORK/nginx;
  scgi_temp_path $WORK/nginx;
  server { listen 127.0.0.1:$NPORT; root $WORK/files; }
}
NGINX
/usr/sbin/nginx -c "$WORK/nginx.conf" -p "$WORK/nginx"
URL[nginx]=http://127.0.0.1:$NPORT
wait_http "${URL[nginx]}/hitb/o${sizes[0]}"
NGINX_PIDS="$(cat "$WORK/nginx.pid") $(pgrep -P "$(cat "$WORK/nginx.pid")" | tr '\n' ' ')"

# The two Go file servers.
for name in static raw; do
	port=$(free_port)
	extra=()
	[[ $name == raw ]] && extra=(--static-raw)
	"$WORK/og" bench --serve-static "$WORK/files" --listen "127.0.0.1:$port" "${extra[@]}" >"$WORK/$name.log" 2>&1 &
	PID[$name]=$!
	URL[$name]=http://127.0.0.1:$port
	wait_http "${URL[$name]}/hitb/o${sizes[0]}"
done

# Origin and edge.
export OBJECTGATEWAY_ACCESS_KEY=hitfloor
OBJECTGATEWAY_SECRET_KEY=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
export OBJECTGATEWAY_SECRET_KEY AWS_ACCESS_KEY_ID=hitfloor AWS_SECRET_ACCESS_KEY=$OBJECTGATEWAY_SECRET_KEY AWS_DEFAULT_REGION=us-east-1
OPORT=$(free_port)
"$WORK/og" serve --root "$WORK/origin" --listen "127.0.0.1:$OPORT" --log-level warn >"$WORK/origin.log" 2>&1 &
PID[origin]=$!
wait_http "http://127.0.0.1:$OPORT/"
"$AWS" --endpoint-url "http://127.0.0.1:$OPORT" s3 mb s3://hitb >/dev/null
for s in "${sizes[@]}"; do
	"$AWS" --endpoint-url "http://127.0.0.1:$OPORT" s3 cp "$WORK/files/hitb/o$s" "s3://hitb/o$s" \
		--cache-control "public, max-age=36000" --acl public-read >/dev/null
done
# edge: hits through net/http (--edge-fast-hits=false); edge-fast: as the
# edge starts by default, hits answered outside net/http (pkg/httpintercept).
for name in edge edge-fast; do
	EPORT=$(free_port)
	extra=()
	[[ $name == edge ]] && extra=(--edge-fast-hits=false)
	"$WORK/og" serve --root "$WORK/$name" --listen "127.0.0.1:$EPORT" --upstream "http://127.0.0.1:$OPORT" \
		--cache-size 1GiB --cache-memory 256MiB --edge-public --log-level warn "${extra[@]}" >"$WORK/$name.log" 2>&1 &
	PID[$name]=$!
	URL[$name]=http://127.0.0.1:$EPORT
	wait_http "${URL[$name]}/"
done
for s in "${sizes[@]}"; do
	for _ in 1 2; do curl -s -o /dev/null "${URL[edge]}/hitb/o$s"; curl -s -o /dev/null "${URL[edge-fast]}/hitb/o$s"; done
	for name in nginx static raw edge edge-fast; do
		if ! curl -s -o "$WORK/check" "${URL[$name]}/hitb/o$s" || ! cmp -s "$WORK/check" "$WORK/files/hitb/o$s"; then
			log "$name: GET /hitb/o$s did not answer the file"
			exit 1
		fi
	done
	for name in edge edge-fast; do
		[[ $(curl -s -D - -o /dev/null "${URL[$name]}/hitb/o$s" | tr -d '\r' | awk -F': ' 'tolower($1) == "x-cache" {print $2}') == HIT ]] ||
			{ log "$name: /hitb/o$s is not a hit"; exit 1; }
	done
done

cputicks() { local t=0 p; for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "$t"; }
HZ=$(getconf CLK_TCK)
# measure NAME SIZE: µs of server CPU per request, p99.
measure() {
	local name=$1 s=$2 pids t0 t1 out reqs p99
	if [[ $name == nginx ]]; then pids=$NGINX_PIDS; else pids=${PID[$name]}; fi
	wrk -t2 -c"$CONNS" -d"$WARMUP" "${URL[$name]}/hitb/o$s" >/dev/null
	# shellcheck disable=SC2086
	t0=$(cputicks $pids)
	out=$(wrk -t2 -c"$CONNS" -d"$DURATION" --latency "${URL[$name]}/hitb/o$s")
	# shellcheck disable=SC2086
	t1=$(cputicks $pids)
	reqs=$(awk '/requests in/ {print $1}' <<<"$out")
	p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
	if [[ -z $reqs ]] || grep -qE 'Non-2xx|Socket errors' <<<"$out"; then
		log "$name: wrk reported errors:"
		echo "$out" >&2
		return 1
	fi
	awk -v t="$((t1 - t0))" -v hz="$HZ" -v n="$reqs" -v p="$p99" 'BEGIN { printf "%9.1f µs %8s", t / hz * 1e6 / n, p }'
}
names=(nginx static raw edge edge-fast)
for s in "${sizes[@]}"; do
	printf '\n%-6s %-5s' "$s" round
	for name in "${names[@]}"; do printf ' %21s' "$name (CPU/req, p99)"; done
	printf '\n'
	for ((r = 1; r <= ROUNDS; r++)); do
		printf '%-6s %-5s' "$s" "$r"
		for name in "${names[@]}"; do printf ' %21s' "$(measure "$name" "$s")"; done
		printf '   load %s\n' "$(cut -d' ' -f1 /proc/loadavg)"
	done
done
