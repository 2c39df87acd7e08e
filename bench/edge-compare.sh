#!/usr/bin/env bash
# edge-compare.sh — the edge benchmark of issue 6 on this machine.
#
# Starts, on 127.0.0.1 free ports with everything in one temporary
# directory (removed on exit):
#   - an origin ObjectGateway (built from this tree);
#   - Varnish 7 in front of it (-s malloc,$CACHE_SIZE, X-Cache from obj.hits);
#   - nginx proxy_cache in front of it (X-Cache from $upstream_cache_status,
#     1 MiB slices for the 10m, 16m and 50m classes as in docs/cdn.md);
#   - ObjectGateway in edge mode in front of it (serve --upstream … --edge-public),
#     skipped with a message when this tree's serve has no --upstream;
# then runs `objectgateway bench --scenarios edge` against the three, and a
# restart phase: a warm pass on $RESTART_SIZES, a restart of every cache on
# the same storage, and the same pass again, whose hit ratio and "keys
# missed" say what each cache kept.
#
# Environment (all optional):
#   OUT            directory for the results (default ./edge-results-DATE)
#   SIZES          size classes of the main run (default 100k,500k,1m,10m,16m,50m)
#   DURATION       time bound per size class and endpoint (default 20s)
#   CONNS          client connections per endpoint (default 100)
#   CACHE_SIZE     size of every cache, in GiB (default 1)
#   QUICK=1        small counts (--quick), for trying the script out
#   RESTART_SIZES  size classes of the restart phase (default 1m)
#   RESTART_REQUESTS  GETs per class in each restart-phase pass (default 2000)
#   PAUSE          seconds to wait, the caches idle, between the main run and
#                  the restart phase (default 0): long enough (75) for the
#                  edge's delayed syncs of the main run's fills to happen
#                  before the restart, e.g. inside a perf record of the edge
#   DIRECT=1       also measure the origin itself as an endpoint (no cache)
#   SKIP           caches not to start, comma-separated: og, varnish, nginx
#   BASE_BIN       a second objectgateway binary (e.g. built from an older
#                  commit) run as another edge, endpoint "og-base", on its
#                  own cache directory with the same flags: before/after in
#                  one interleaved run
#   EXTRA          more flags for both bench runs
#   WORK_IN        directory in which the temporary directory is made
#                  (default /tmp): e.g. the mount point of a freshly made
#                  ext4 with a journal, as a cache disk is, so that the
#                  figures do not depend on the history of a shared file
#                  system (docs/performance.md, "CPU to the nanosecond, and a
#                  cache disk of its own")
#   PROFILE=1      after the restart phase, a pass of 100 KiB GETs over the
#                  objects the main run cached (all hits), during which a
#                  CPU profile of each ObjectGateway edge is taken through
#                  its admin listener (--pprof): profile-og.pprof and
#                  profile-og.txt (pprof -top), the same for og-base
#                  (needs 100k in SIZES; PROFILE_REQUESTS GETs, default 100000)
#
# Needs root only to install Varnish or nginx when missing (apt-get).
set -euo pipefail

cd "$(dirname "$0")/.."
REPO=$PWD
# shellcheck source=bench/nginx-cache.sh
source bench/nginx-cache.sh
OUT=${OUT:-$REPO/edge-results-$(date -u +%Y%m%d-%H%M)}
SIZES=${SIZES:-100k,500k,1m,10m,16m,50m}
DURATION=${DURATION:-20s}
CONNS=${CONNS:-100}
CACHE_SIZE=${CACHE_SIZE:-1}
RESTART_SIZES=${RESTART_SIZES:-1m}
RESTART_REQUESTS=${RESTART_REQUESTS:-2000}
EXTRA=${EXTRA:-}
SKIP=",${SKIP:-},"
QUICKFLAG=()
if [[ ${QUICK:-0} == 1 ]]; then QUICKFLAG=(--quick); fi

log() { printf '[edge-compare %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
# shellcheck source=bench/lib.sh
source bench/lib.sh

# --- tools ------------------------------------------------------------------
need_pkgs=()
[[ -x /usr/sbin/varnishd ]] || need_pkgs+=(varnish)
[[ -x /usr/sbin/nginx ]] || need_pkgs+=(nginx)
if ((${#need_pkgs[@]})); then
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
		log "installing ${need_pkgs[*]}"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
	else
		log "missing ${need_pkgs[*]} and cannot apt-get install them (not root, or no apt-get)"
	fi
fi
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}

# --- scratch space and cleanup ------------------------------------------------
# The directory is world-readable: varnishd drops privileges when started
# as root and must reach its working directory and VCL.
WORK=$(mktemp -d "${WORK_IN:-/tmp}/edge-compare.XXXXXX")
chmod 755 "$WORK"
declare -A PID=()
stop() { # stop NAME: TERM the process, wait up to 10 s, then KILL it.
	local name=$1 pid=${PID[$1]:-}
	[[ -n $pid ]] || return 0
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
	unset "PID[$name]"
}
cleanup() {
	local rc=$?
	for name in "${!PID[@]}"; do stop "$name"; done
	if [[ -d ${OUT:-} ]]; then
		mkdir -p "$OUT/logs"
		for f in "$WORK"/*.log; do
			[[ -f $f ]] && tail -n 2000 "$f" >"$OUT/logs/$(basename "$f")"
		done
		[[ -f $WORK/nginx/error.log ]] && cp "$WORK/nginx/error.log" "$OUT/logs/nginx-error.log"
	fi
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- build --------------------------------------------------------------------
BIN=$WORK/objectgateway
log "building $BIN"
"$GO" build -o "$BIN" ./cmd/objectgateway
export OBJECTGATEWAY_ACCESS_KEY=edgebench
OBJECTGATEWAY_SECRET_KEY=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
export OBJECTGATEWAY_SECRET_KEY
mkdir -p "$OUT"

# --- origin -------------------------------------------------------------------
OPORT=$(free_port)
ORIGIN=http://127.0.0.1:$OPORT
start_origin() {
	"$BIN" serve --root "$WORK/origin" --listen "127.0.0.1:$OPORT" >"$WORK/origin.log" 2>&1 &
	PID[origin]=$!
	wait_http "$ORIGIN/" "${PID[origin]}" "$WORK/origin.log"
}
start_origin
log "origin ObjectGateway on $ORIGIN (pid ${PID[origin]})"

# --- Varnish ------------------------------------------------------------------
VPORT=$(free_port)
HAVE_VARNISH=0
start_varnish() {
	# nuke_limit: with the default (50), storing a 10 MiB object in a
	# store full of 100 KiB ones failed once 50 evictions had not made
	# room, and the client streaming that miss got a truncated body (13 of
	# 409 responses of the 10m class here, MAIN.n_lru_limited 13).
	/usr/sbin/varnishd -F -a "127.0.0.1:$VPORT" -f "$WORK/edge.vcl" -s "malloc,${CACHE_SIZE}G" \
		-p nuke_limit=2000 -n "$WORK/varnish" >"$WORK/varnish.log" 2>&1 &
	PID[varnish]=$!
	wait_http "http://127.0.0.1:$VPORT/" "${PID[varnish]}" "$WORK/varnish.log"
}
if [[ $SKIP == *,varnish,* ]]; then
	log "Varnish: skipped (SKIP)"
elif [[ -x /usr/sbin/varnishd ]]; then
	cat >"$WORK/edge.vcl" <<EOF
vcl 4.1;

backend origin {
    .host = "127.0.0.1";
    .port = "$OPORT";
    .first_byte_timeout = 60s;
    .between_bytes_timeout = 60s;
}

sub vcl_recv {
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    if (req.http.Authorization || req.url ~ "[?&](X-Amz-)?Signature=") {
        return (pass);
    }
    unset req.http.Cookie;
    # Range is answered from the cached object (Varnish fetches it whole).
    return (hash);
}

sub vcl_backend_response {
    if (beresp.status == 200) {
        # The bench stores its objects with max-age=3600; this is the
        # lifetime of anything stored without Cache-Control.
        if (!beresp.http.Cache-Control) {
            set beresp.ttl = 1h;
        }
        set beresp.grace = 1m;
        set beresp.keep = 1d;
    } else {
        set beresp.ttl = 10s;
        set beresp.grace = 0s;
    }
    set beresp.do_stream = true;
}

sub vcl_deliver {
    if (obj.uncacheable) {
        set resp.http.X-Cache = "PASS";
    } else if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
}
EOF
	start_varnish
	HAVE_VARNISH=1
	log "Varnish on 127.0.0.1:$VPORT (pid ${PID[varnish]}, malloc ${CACHE_SIZE}G)"
else
	log "Varnish: /usr/sbin/varnishd missing: skipped"
fi

# --- nginx --------------------------------------------------------------------
NPORT=$(free_port)
HAVE_NGINX=0
start_nginx() {
	/usr/sbin/nginx -p "$WORK/nginx" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' \
		>"$WORK/nginx.log" 2>&1 &
	PID[nginx]=$!
	wait_http "http://127.0.0.1:$NPORT/" "${PID[nginx]}" "$WORK/nginx/error.log"
}
if [[ $SKIP == *,nginx,* ]]; then
	log "nginx: skipped (SKIP)"
elif [[ -x /usr/sbin/nginx ]]; then
	mkdir -p "$WORK/nginx/cache"
	nginx_cache_conf "$WORK/nginx" "$OPORT" "$NPORT" "$CACHE_SIZE" >"$WORK/nginx/nginx.conf"
	start_nginx
	HAVE_NGINX=1
	log "nginx on 127.0.0.1:$NPORT (pid ${PID[nginx]}, cache max_size ${CACHE_SIZE}g)"
else
	log "nginx: /usr/sbin/nginx missing: skipped"
fi

# --- ObjectGateway edge mode ----------------------------------------------------
EPORT=$(free_port)
HAVE_OG=0
# admin_flags PORT: the admin listener with pprof, when PROFILE=1.
admin_flags() {
	[[ ${PROFILE:-0} == 1 ]] && echo "--admin-listen 127.0.0.1:$1 --pprof"
	return 0
}
EADMIN=$(free_port)
start_og() {
	# shellcheck disable=SC2046 # admin_flags is a list of flags
	"$BIN" serve --root "$WORK/edge" --listen "127.0.0.1:$EPORT" --upstream "$ORIGIN" \
		--cache-size "${CACHE_SIZE}GiB" --cache-memory 256MiB --edge-public $(admin_flags "$EADMIN") \
		--log-level warn >"$WORK/og-edge.log" 2>&1 &
	PID[og]=$!
	wait_http "http://127.0.0.1:$EPORT/" "${PID[og]}" "$WORK/og-edge.log"
}
SERVE_HELP=$("$BIN" serve --help 2>&1 || true)
if [[ $SKIP == *,og,* ]]; then
	log "ObjectGateway edge mode: skipped (SKIP)"
elif grep -q -- '-upstream' <<<"$SERVE_HELP"; then
	start_og
	HAVE_OG=1
	log "ObjectGateway edge mode on 127.0.0.1:$EPORT (pid ${PID[og]}, cache ${CACHE_SIZE}GiB)"
else
	log "ObjectGateway edge mode: this tree's 'serve' has no --upstream flag yet: skipped"
fi

# --- a second edge from another binary (BASE_BIN) -------------------------------
BPORT=$(free_port)
HAVE_BASE=0
BADMIN=$(free_port)
start_base() {
	# shellcheck disable=SC2046 # admin_flags is a list of flags
	"$BASE_BIN" serve --root "$WORK/edge-base" --listen "127.0.0.1:$BPORT" --upstream "$ORIGIN" \
		--cache-size "${CACHE_SIZE}GiB" --cache-memory 256MiB --edge-public $(admin_flags "$BADMIN") \
		--log-level warn >"$WORK/og-base.log" 2>&1 &
	PID[base]=$!
	wait_http "http://127.0.0.1:$BPORT/" "${PID[base]}" "$WORK/og-base.log"
}
if [[ -n ${BASE_BIN:-} ]]; then
	start_base
	HAVE_BASE=1
	log "ObjectGateway edge mode from $BASE_BIN on 127.0.0.1:$BPORT (pid ${PID[base]})"
fi

# --- the runs -------------------------------------------------------------------
compare() {
	local eps=()
	((HAVE_BASE)) && eps+=("og-base=http://127.0.0.1:$BPORT;mode=http;pid=${PID[base]}")
	((HAVE_OG)) && eps+=("og=http://127.0.0.1:$EPORT;mode=http;pid=${PID[og]}")
	((HAVE_VARNISH)) && eps+=("varnish=http://127.0.0.1:$VPORT;mode=http;pid=${PID[varnish]}")
	((HAVE_NGINX)) && eps+=("nginx=http://127.0.0.1:$NPORT;mode=http;pid=${PID[nginx]}")
	[[ ${DIRECT:-0} == 1 ]] && eps+=("direct=$ORIGIN;mode=http")
	local IFS=,
	echo "${eps[*]}"
}
if [[ -z $(compare) ]]; then
	log "no cache to measure"
	exit 1
fi
BUCKET=ogedge-$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')

# bench NAME ARGS…: one bench run, its table on stdout and in $OUT/NAME.txt.
bench() {
	local name=$1
	shift
	log "bench $name: $*"
	# shellcheck disable=SC2086 # EXTRA is a list of flags
	"$BIN" bench --edge-origin "$ORIGIN" --edge-origin-pid "${PID[origin]}" --compare "$(compare)" \
		--scenarios edge --bucket "$BUCKET" --edge-keep --edge-conns "$CONNS" "${QUICKFLAG[@]}" \
		--json "$OUT/$name.json" "$@" $EXTRA | tee "$OUT/$name.txt" || log "bench $name: exit status $? (see the notes in the table)"
	# Varnish's counters (fetch failures, LRU nukes …) explain its errors.
	if [[ -n ${PID[varnish]:-} ]] && command -v varnishstat >/dev/null; then
		varnishstat -n "$WORK/varnish" -1 >"$OUT/varnishstat-$name.txt" 2>&1 || true
	fi
}

{
	echo "edge-compare.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "varnish: $(/usr/sbin/varnishd -V 2>&1 | head -1)"
	echo "nginx: $(/usr/sbin/nginx -v 2>&1)"
	# Loopback TCP's costs depend on these (docs/performance.md, "What a
	# miss costs, and the head's packet").
	echo "kernel: $(uname -r), TCP congestion control $(cat /proc/sys/net/ipv4/tcp_congestion_control 2>/dev/null), lo qdisc $(tc qdisc show dev lo 2>/dev/null | awk '{print $2; exit}')"
	echo "objectgateway: $(git -C "$REPO" rev-parse --short HEAD)$(git -C "$REPO" diff --quiet || echo ' (modified)')"
	if ((HAVE_BASE)); then echo "og-base: $BASE_BIN"; fi
} | tee "$OUT/machine.txt"

bench edge --edge-sizes "$SIZES" --duration "$DURATION" --html "$OUT/edge.html"

# --- restart phase ----------------------------------------------------------------
if ((${PAUSE:-0} > 0)); then
	log "pausing ${PAUSE}s before the restart phase (PAUSE)"
	sleep "$PAUSE"
fi
# A warm pass and the same pass after a restart read exactly the same keys
# (the sequence is fixed by the options), so a cache that kept its copies
# misses none in the second.
RARGS=(--edge-sizes "$RESTART_SIZES" --edge-requests "$RESTART_REQUESTS" --rounds 1 --duration 10m)
bench restart-warm "${RARGS[@]}"
log "restarting the caches on the same storage"
if ((HAVE_OG)); then stop og; start_og; fi
if ((HAVE_BASE)); then stop base; start_base; fi
if ((HAVE_VARNISH)); then stop varnish; start_varnish; fi
if ((HAVE_NGINX)); then stop nginx; start_nginx; fi
bench restart-after "${RARGS[@]}"

# --- profile of the 100 KiB hit ---------------------------------------------------
if [[ ${PROFILE:-0} == 1 ]]; then
	PREQ=${PROFILE_REQUESTS:-100000}
	# Each profile covers the whole pass; a process spends CPU only while
	# the bench asks it (the endpoints take turns), so each profile is of
	# its own hits.
	pids=()
	profile() { # profile NAME ADMINPORT
		curl -s -o "$OUT/profile-$1.pprof" "http://127.0.0.1:$2/debug/pprof/profile?seconds=$3" &&
			"$GO" tool pprof -top -nodecount=40 "$OUT/profile-$1.pprof" >"$OUT/profile-$1.txt" 2>&1
	}
	# The pass takes a few seconds per endpoint; the profile outlasts it.
	PSEC=${PROFILE_SECONDS:-90}
	((HAVE_OG)) && { profile og "$EADMIN" "$PSEC" & pids+=($!); }
	((HAVE_BASE)) && { profile og-base "$BADMIN" "$PSEC" & pids+=($!); }
	bench profile-100k --edge-sizes 100k --edge-requests "$PREQ" --rounds 1 --duration 10m
	log "waiting for the profiles (${PSEC}s from the start of the pass)"
	for p in "${pids[@]}"; do wait "$p" || log "a profile failed"; done
fi

echo
echo "Hit ratio and keys missed after the restart ($OUT/restart-after.txt):"
grep -E '^ *(scenario|edge-[^ ]+ +requests/s| +hit ratio| +keys missed)' "$OUT/restart-after.txt" || true
log "results in $OUT"
