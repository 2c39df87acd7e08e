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

# shellcheck source=.ci/gateway.sh
source "$(dirname "${BASH_SOURCE[0]}")/gateway.sh"

command -v node >/dev/null && command -v npm >/dev/null || { echo "e2e-js: node and npm are needed"; exit 1; }
cp "$REPO/.ci/e2e-js/package.json" "$REPO/.ci/e2e-js/smoke.mjs" "$WORK/"
(cd "$WORK" && timeout 600 npm install --no-audit --no-fund --loglevel=error >"$WORK/npm.log" 2>&1) || { cat "$WORK/npm.log"; exit 1; }

start_gateway
echo "e2e-js: AWS SDK for JavaScript v3 $(cd "$WORK" && node -p "require(\"./node_modules/@aws-sdk/client-s3/package.json\").version") on node $(node --version)"
cd "$WORK" && AK=$GW_KEY SK=$GW_SECRET NODE_NO_WARNINGS=1 timeout 600 node smoke.mjs "$GW_URL"
