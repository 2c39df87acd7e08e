#!/usr/bin/env bash
# index-compare.sh — the catalogue on PostgreSQL against the embedded bbolt
# index, in one interleaved run of the project's bench tool (issue 15:
# "small GET p50 ≤ 1.3×, durable small PUT p50 ≤ 2×", and three gateways
# behind nginx against one).
#
# Builds cmd/objectgateway, starts a throw-away PostgreSQL cluster (initdb in
# a temporary directory, as nobody under root, on a unix socket there and no
# TCP port, with PostgreSQL's durable defaults: fsync and synchronous_commit
# on), and on free 127.0.0.1 ports:
#   - bbolt:    one gateway, --fsync=true, its own root;
#   - postgres: one gateway, --fsync=true, another root, --index on the
#               cluster (unix socket);
#   - group:    with GROUP=1, three gateways on a third root and a second
#               database, behind nginx (round-robin, docs/scale-out.md's
#               configuration), measured through nginx; their CPU is summed.
# Then runs `objectgateway bench --compare` over them with SCENARIOS,
# interleaved in ROUNDS rounds; the bench tool prints medians, ratios to the
# first endpoint (bbolt), and server CPU per request from the pids.
#
# Environment (all optional):
#   SCENARIOS  bench scenarios (default small-get,small-head,small-put,list-page,mixed)
#   ROUNDS     rounds (default 5)
#   COUNT      sequential requests per latency scenario (default 2000)
#   OBJECTS    objects of the listing bucket (default 10000)
#   GROUP      1: also three gateways behind nginx (needs nginx)
#   NOCACHE    1: also one gateway on PostgreSQL with --record-cache=-1
#              ("pg-nocache", its own root and database): every GET and
#              HEAD asks the database, as before the record cache
#   MIXCPU     1: afterwards, the mixed scenario once more on each endpoint
#              alone (MIXDURATION, default 15s), printing the server CPU per
#              operation: the gateways' and PostgreSQL's (every process of
#              the cluster), from /proc around the run
#   BENCHARGS  more flags for the bench tool
set -euo pipefail

cd "$(dirname "$0")/.."
SCENARIOS=${SCENARIOS:-small-get,small-head,small-put,list-page,mixed}
ROUNDS=${ROUNDS:-5}
COUNT=${COUNT:-2000}
OBJECTS=${OBJECTS:-10000}
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}

log() { printf '%s index-compare: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
# shellcheck source=bench/lib.sh
source bench/lib.sh

PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [[ -z $PGBIN ]]; then
	log "PostgreSQL is not installed (apt-get install postgresql)"
	exit 1
fi

WORK=$(mktemp -d /tmp/index-compare.XXXXXX)
chmod 755 "$WORK"
declare -a PIDS=()
cleanup() {
	local rc=$?
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[[ -f $WORK/nginx.pid ]] && kill -QUIT "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
	pg stop -m fast >/dev/null 2>&1 || true
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# PostgreSQL, as nobody when root (initdb refuses root).
as_pg() { if [[ $(id -u) == 0 ]]; then su nobody -s /bin/sh -c "$*"; else sh -c "$*"; fi; }
mkdir -p "$WORK/pg"
[[ $(id -u) == 0 ]] && chown nobody "$WORK/pg"
PGPORT=$(free_port)
pg() { as_pg "$PGBIN/pg_ctl -D $WORK/pg/data -l $WORK/pg/log $*"; }
log "starting PostgreSQL ($PGBIN)"
as_pg "$PGBIN/initdb -D $WORK/pg/data -U og --auth=trust -E UTF8 --locale=C >$WORK/pg/initdb.log 2>&1"
pg "-o \"-k $WORK/pg -p $PGPORT -c listen_addresses='' -c max_connections=300\" -w start" >/dev/null
PGUSER=og
psql_() { "$PGBIN/psql" -h "$WORK/pg" -p "$PGPORT" -U og -d postgres -qAt -c "$1"; }
psql_ "CREATE DATABASE og_one" && psql_ "CREATE DATABASE og_group" && psql_ "CREATE DATABASE og_nocache"
DSN_NOCACHE="host=$WORK/pg port=$PGPORT user=$PGUSER dbname=og_nocache sslmode=disable"
DSN_ONE="host=$WORK/pg port=$PGPORT user=$PGUSER dbname=og_one sslmode=disable"
DSN_GROUP="host=$WORK/pg port=$PGPORT user=$PGUSER dbname=og_group sslmode=disable"

log "building the gateway"
"$GO" build -o "$WORK/og" ./cmd/objectgateway

export OBJECTGATEWAY_ACCESS_KEY=indexbench
OBJECTGATEWAY_SECRET_KEY=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
export OBJECTGATEWAY_SECRET_KEY

# start NAME ROOT [ARGS...]: starts a gateway, sets URL_NAME and PID_NAME.
start() {
	local name=$1 root=$2 port
	shift 2
	port=$(free_port)
	"$WORK/og" serve --root "$root" --listen "127.0.0.1:$port" --fsync=true --log-level warn "$@" \
		>"$WORK/$name.log" 2>&1 &
	PIDS+=($!)
	printf -v "PID_$name" %s $!
	printf -v "URL_$name" %s "http://127.0.0.1:$port"
	wait_http "http://127.0.0.1:$port/"
}

start bbolt "$WORK/root-bbolt"
start postgres "$WORK/root-pg" --index "$DSN_ONE"
compare="bbolt=$URL_bbolt;pid=$PID_bbolt,postgres=$URL_postgres;pid=$PID_postgres"
declare -A EPURL=([bbolt]=$URL_bbolt [postgres]=$URL_postgres) EPPIDS=([bbolt]=$PID_bbolt [postgres]=$PID_postgres)

if [[ ${NOCACHE:-} == 1 ]]; then
	start nocache "$WORK/root-nocache" --index "$DSN_NOCACHE" --record-cache=-1
	compare+=",pg-nocache=$URL_nocache;pid=$PID_nocache"
	EPURL[pg-nocache]=$URL_nocache EPPIDS[pg-nocache]=$PID_nocache
fi

if [[ ${GROUP:-} == 1 ]]; then
	servers=''
	pids=''
	for i in 1 2 3; do
		start "g$i" "$WORK/root-group" --index "$DSN_GROUP"
		u=URL_g$i p=PID_g$i
		servers+="        server ${!u#http://};"$'\n'
		pids+="${pids:+,}${!p}"
	done
	# The nginx block of docs/scale-out.md (the one TestScaleOutGateways
	# runs), with these addresses.
	conf=$(awk '/<!-- scale-out-test: nginx -->/{f=1; next} /<!-- end scale-out-test -->/{f=0} f' docs/scale-out.md | sed '/^```/d')
	if [[ -z $conf ]]; then
		log "docs/scale-out.md has no scale-out-test nginx block"
		exit 1
	fi
	nport=$(free_port)
	conf=$(sed -e '/server 10\.0\.0\.1[0-9]:9000;/d' -e "s/listen 80;/listen 127.0.0.1:$nport;/" <<<"$conf" |
		awk -v s="$servers" '{print} /upstream objectgateways/ && !done {printf "%s", s; done=1}')
	mkdir -p "$WORK/nginx"
	cat >"$WORK/nginx/nginx.conf" <<EOF
$([[ $(id -u) == 0 ]] && echo 'user root;')
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
$conf
}
EOF
	nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf"
	wait_http "http://127.0.0.1:$nport/"
	compare+=",group=http://127.0.0.1:$nport;pid=$pids"
	EPURL[group]=http://127.0.0.1:$nport EPPIDS[group]=${pids//,/ }
fi

log "bench: $SCENARIOS, $ROUNDS rounds"
export AWS_ACCESS_KEY_ID=$OBJECTGATEWAY_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$OBJECTGATEWAY_SECRET_KEY
# shellcheck disable=SC2086
"$WORK/og" bench --compare "$compare" --scenarios "$SCENARIOS" --rounds "$ROUNDS" \
	--count "$COUNT" --objects "$OBJECTS" ${BENCHARGS:-}
printf 'load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"

if [[ ${MIXCPU:-} == 1 ]]; then
	# ticks PID...: utime+stime of the processes, in clock ticks.
	ticks() { local t=0 p; for p in "$@"; do [[ -r /proc/$p/stat ]] && t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo $t; }
	pgpids() { pgrep -P "$(head -1 "$WORK/pg/data/postmaster.pid")" | tr '\n' ' '; head -1 "$WORK/pg/data/postmaster.pid"; }
	HZ=$(getconf CLK_TCK)
	printf '\nmixed alone, %s per endpoint: server CPU per operation\n' "${MIXDURATION:-15s}"
	printf '%-9s %9s %12s %12s %12s\n' endpoint ops/s 'gateway µs' 'postgres µs' 'total µs'
	for name in bbolt postgres ${EPURL[pg-nocache]:+pg-nocache} ${EPURL[group]:+group}; do
		# shellcheck disable=SC2086
		g0=$(ticks ${EPPIDS[$name]}) p0=$(ticks $(pgpids))
		"$WORK/og" bench --endpoint "${EPURL[$name]}" --scenarios mixed --duration "${MIXDURATION:-15s}" \
			--json "$WORK/mix-$name.json" >/dev/null 2>&1
		# shellcheck disable=SC2086
		g1=$(ticks ${EPPIDS[$name]}) p1=$(ticks $(pgpids))
		ops=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(e["ops"] for s in r["scenarios"] for e in s["results"]))' "$WORK/mix-$name.json")
		secs=${MIXDURATION:-15s}
		awk -v n="$name" -v ops="$ops" -v d="${secs%s}" -v g=$((g1 - g0)) -v p=$((p1 - p0)) -v hz="$HZ" \
			'BEGIN { printf "%-9s %9.0f %12.1f %12.1f %12.1f\n", n, ops / d, g * 1e6 / hz / ops, p * 1e6 / hz / ops, (g + p) * 1e6 / hz / ops }'
	done
fi
