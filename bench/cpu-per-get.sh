#!/usr/bin/env bash
# cpu-per-get.sh — server CPU time per presigned 1 KiB GET under wrk
# (issue 5: "a presigned 1 KiB GET under 32 connections costs ≤ 1.5× the
# minimal Go file server's").
#
# Builds cmd/objectgateway from this tree (and, with BASE=REV, from git
# revision REV as a second gateway), starts on free 127.0.0.1 ports, in one
# temporary directory removed on exit:
#   - the gateway: serve --fsync=true, access log on (the default);
#   - BASE's gateway, the same way, when BASE is set;
#   - the static-file server of `objectgateway bench --serve-static`;
# stores one 1 KiB object on each (the AWS CLI v2 for the gateways, a plain
# file for the static server), presigns the gateways' GET URLs with
# `aws s3 presign`, and then, for ROUNDS rounds with the endpoint order
# rotated each round, runs wrk against each endpoint: WARMUP of load, then
# the utime+stime of the server process (/proc/PID/stat) around
# `wrk -t2 -cCONNS -dDURATION`. CPU µs per request = the CPU delta / the
# requests wrk completed. Any non-2xx answer fails the run.
#
# Environment (all optional):
#   ROUNDS    rounds (default 5)
#   DURATION  measured wrk run per endpoint and round (default 6s)
#   WARMUP    wrk run before each measured one (default 2s)
#   CONNS     wrk connections (default 32)
#   BASE      git revision to build and measure as gateway "base"
#   SSE       1: also store the object with SSE-AES256 on each gateway as
#             obj-sse and measure its presigned GET as endpoint NAME-sse
#             (issue 13: within 1.5× of the plain object's CPU)
#   PUBLIC    1: also store the object in a bucket with a public-read
#             bucket policy (Principal "*", s3:GetObject) and measure its
#             anonymous GET as endpoint NAME-public (an origin behind a
#             CDN); with BASE, the cost of the policy's decision before
#             and after a change
#
# Needs wrk and the AWS CLI v2 (/usr/bin/aws); as root it installs them
# with apt-get when they are missing.
set -euo pipefail

cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-6s}
WARMUP=${WARMUP:-2s}
CONNS=${CONNS:-32}
AWS=/usr/bin/aws
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}

log() { printf '%s cpu-per-get: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
# shellcheck source=bench/lib.sh
source bench/lib.sh

need=()
command -v wrk >/dev/null || need+=(wrk)
[[ -x $AWS ]] || need+=(awscli)
if ((${#need[@]})); then
	if [[ $(id -u) != 0 ]]; then
		log "missing: ${need[*]} (install them, or run as root)"
		exit 1
	fi
	log "installing ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

WORK=$(mktemp -d /tmp/cpu-per-get.XXXXXX)
declare -A PID=() URL=()
cleanup() {
	local rc=$?
	for name in "${!PID[@]}"; do kill -TERM "${PID[$name]}" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export OBJECTGATEWAY_ACCESS_KEY=cpubench
OBJECTGATEWAY_SECRET_KEY=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
export OBJECTGATEWAY_SECRET_KEY
export AWS_ACCESS_KEY_ID=$OBJECTGATEWAY_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$OBJECTGATEWAY_SECRET_KEY
export AWS_DEFAULT_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true AWS_CONFIG_FILE=/dev/null
head -c 1024 /dev/urandom >"$WORK/obj"

log "building the gateway"
"$GO" build -o "$WORK/og" ./cmd/objectgateway
gateways=(gw)
declare -A BINARY=([gw]=$WORK/og)
if [[ -n ${BASE:-} ]]; then
	log "building $BASE"
	mkdir "$WORK/base-src"
	git archive "$BASE" | tar -x -C "$WORK/base-src"
	(cd "$WORK/base-src" && "$GO" build -o "$WORK/og-base" ./cmd/objectgateway)
	gateways+=(base)
	BINARY[base]=$WORK/og-base
fi

for name in "${gateways[@]}"; do
	port=$(free_port)
	"${BINARY[$name]}" serve --root "$WORK/root-$name" --listen "127.0.0.1:$port" --fsync=true \
		>"$WORK/$name.log" 2>&1 &
	PID[$name]=$!
	wait_http "http://127.0.0.1:$port/"
	ep="http://127.0.0.1:$port"
	$AWS --endpoint-url "$ep" s3api create-bucket --bucket wrkb >/dev/null
	$AWS --endpoint-url "$ep" s3api put-object --bucket wrkb --key obj --body "$WORK/obj" >/dev/null
	URL[$name]=$($AWS --endpoint-url "$ep" s3 presign s3://wrkb/obj --expires-in 21600)
	if [[ ${SSE:-} == 1 ]]; then
		$AWS --endpoint-url "$ep" s3api put-object --bucket wrkb --key obj-sse --body "$WORK/obj" \
			--server-side-encryption AES256 >/dev/null
		URL[$name-sse]=$($AWS --endpoint-url "$ep" s3 presign s3://wrkb/obj-sse --expires-in 21600)
		PID[$name-sse]=${PID[$name]}
		gateways+=("$name-sse")
	fi
	if [[ ${PUBLIC:-} == 1 ]]; then
		$AWS --endpoint-url "$ep" s3api create-bucket --bucket pubb >/dev/null
		$AWS --endpoint-url "$ep" s3api put-bucket-policy --bucket pubb --policy \
			'{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::pubb/*"}]}'
		$AWS --endpoint-url "$ep" s3api put-object --bucket pubb --key obj --body "$WORK/obj" >/dev/null
		URL[$name-public]=$ep/pubb/obj
		PID[$name-public]=${PID[$name]}
		gateways+=("$name-public")
	fi
done
port=$(free_port)
mkdir -p "$WORK/static/wrkb"
cp "$WORK/obj" "$WORK/static/wrkb/obj"
"$WORK/og" bench --serve-static "$WORK/static" --listen "127.0.0.1:$port" >"$WORK/static.log" 2>&1 &
PID[static]=$!
URL[static]=http://127.0.0.1:$port/wrkb/obj
wait_http "${URL[static]}"
for name in "${!URL[@]}"; do
	got=$(curl -s -o "$WORK/check" -w '%{http_code}' "${URL[$name]}")
	if [[ $got != 200 ]] || ! cmp -s "$WORK/obj" "$WORK/check"; then
		log "$name: GET answered $got or other bytes"
		exit 1
	fi
done

HZ=$(getconf CLK_TCK)
cputicks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# measure NAME: prints µs of server CPU per request and wrk's requests/s.
measure() {
	local name=$1 t0 t1 out reqs non2xx
	wrk -t2 -c"$CONNS" -d"$WARMUP" "${URL[$name]}" >/dev/null
	t0=$(cputicks "${PID[$name]}")
	out=$(wrk -t2 -c"$CONNS" -d"$DURATION" "${URL[$name]}")
	t1=$(cputicks "${PID[$name]}")
	reqs=$(awk '/requests in/ {print $1}' <<<"$out")
	if [[ -z $reqs ]] || grep -qE 'Non-2xx|Socket errors' <<<"$out"; then
		log "$name: wrk reported errors:"
		echo "$out" >&2
		return 1
	fi
	awk -v t="$((t1 - t0))" -v hz="$HZ" -v n="$reqs" -v d="${DURATION%s}" \
		'BEGIN { printf "%.1f %.0f\n", t * 1e6 / hz / n, n / d }'
}

names=("${gateways[@]}" static)
declare -A SAMPLES=()
printf '%-6s' round
for name in "${names[@]}"; do printf ' %18s' "$name µs (req/s)"; done
printf '   load\n'
for ((r = 1; r <= ROUNDS; r++)); do
	# Rotate the order each round so no endpoint always runs first.
	order=("${names[@]:$(((r - 1) % ${#names[@]}))}" "${names[@]:0:$(((r - 1) % ${#names[@]}))}")
	declare -A row=()
	for name in "${order[@]}"; do
		us='' rps=''
		read -r us rps < <(measure "$name") || true
		[[ -n ${us:-} ]] || exit 1
		row[$name]="$us ($rps)"
		SAMPLES[$name]+="$us "
	done
	printf '%-6s' "$r"
	for name in "${names[@]}"; do printf ' %18s' "${row[$name]}"; done
	printf '   %s\n' "$(cut -d' ' -f1 /proc/loadavg)"
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
st=$(median "${SAMPLES[static]}")
printf '%-6s' median
for name in "${names[@]}"; do
	m=$(median "${SAMPLES[$name]}")
	printf ' %18s' "$m µs $(awk -v a="$m" -v b="$st" 'BEGIN { printf "%.2fx", a / b }')"
done
printf '\n'
