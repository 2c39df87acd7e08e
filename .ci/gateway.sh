# gateway.sh — sourced by .ci/minio-functional.sh and .ci/e2e-js.sh: a
# temporary directory, and one objectgateway (E2E_BIN, or built from this
# tree) started on a free loopback port with fresh root credentials, both
# removed on exit. After start_gateway: GW_URL, GW_KEY, GW_SECRET.
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0" .sh).XXXXXX")
GW_PID=""
cleanup() {
	if [[ -n "$GW_PID" ]] && kill -0 "$GW_PID" 2>/dev/null; then
		kill "$GW_PID" 2>/dev/null || true
		wait "$GW_PID" 2>/dev/null || true
	fi
	chmod -R u+w "$WORK" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT

# start_gateway builds the gateway unless E2E_BIN names one, starts it over
# $WORK/root and waits for its first HTTP answer.
start_gateway() {
	local bin=${E2E_BIN:-} port
	if [[ -z "$bin" ]]; then
		bin=$WORK/objectgateway
		(cd "$REPO" && "$GO" build -o "$bin" ./cmd/objectgateway)
	fi
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	GW_KEY=ci$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')
	GW_SECRET=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
	GW_URL=http://127.0.0.1:$port
	OBJECTGATEWAY_ACCESS_KEY=$GW_KEY OBJECTGATEWAY_SECRET_KEY=$GW_SECRET \
		"$bin" serve --root "$WORK/root" --listen "127.0.0.1:$port" --log-level warn >"$WORK/gateway.log" 2>&1 &
	GW_PID=$!
	for _ in {1..100}; do
		curl -s -o /dev/null "$GW_URL/" && return 0
		sleep 0.1
	done
	echo "$(basename "$0"): the gateway did not answer; its log:"
	cat "$WORK/gateway.log"
	return 1
}
