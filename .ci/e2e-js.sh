#!/usr/bin/env bash
# e2e-js.sh runs .ci/e2e-js/smoke.mjs, the end-to-end checks with the AWS
# SDK for JavaScript v3 (the versions pinned in .ci/e2e-js/package.json,
# installed from the npm registry into a temporary directory), against a
# freshly built objectgateway on a free loopback port.
#
# Usage: bash .ci/e2e-js.sh
#   E2E_BIN=path   use this gateway binary instead of building one
#   GO=path        the go command (default: go on PATH, else /usr/local/go/bin/go)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/e2e-js.XXXXXX")
GW_PID=""
cleanup() {
	if [[ -n "$GW_PID" ]] && kill -0 "$GW_PID" 2>/dev/null; then
		kill "$GW_PID" 2>/dev/null || true
		wait "$GW_PID" 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

command -v node >/dev/null && command -v npm >/dev/null || { echo "e2e-js: node and npm are needed"; exit 1; }
if [[ -n "${E2E_BIN:-}" ]]; then
	BIN=$E2E_BIN
else
	BIN=$WORK/objectgateway
	(cd "$REPO" && "$GO" build -o "$BIN" ./cmd/objectgateway)
fi
cp "$REPO/.ci/e2e-js/package.json" "$REPO/.ci/e2e-js/smoke.mjs" "$WORK/"
(cd "$WORK" && timeout 600 npm install --no-audit --no-fund --loglevel=error >"$WORK/npm.log" 2>&1) || { cat "$WORK/npm.log"; exit 1; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
key=e2ejs
secret=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
OBJECTGATEWAY_ACCESS_KEY=$key OBJECTGATEWAY_SECRET_KEY=$secret \
	"$BIN" serve --root "$WORK/root" --listen "127.0.0.1:$port" --log-level warn >"$WORK/gateway.log" 2>&1 &
GW_PID=$!
for _ in {1..100}; do
	curl -s -o /dev/null "http://127.0.0.1:$port/" && break
	sleep 0.1
done
echo "e2e-js: AWS SDK for JavaScript v3 $(cd "$WORK" && node -p "require(\"./node_modules/@aws-sdk/client-s3/package.json\").version") on node $(node --version)"
cd "$WORK" && AK=$key SK=$secret NODE_NO_WARNINGS=1 timeout 600 node smoke.mjs "http://127.0.0.1:$port"
