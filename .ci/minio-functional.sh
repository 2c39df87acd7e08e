#!/usr/bin/env bash
# minio-functional.sh runs the MinIO Go client's own functional test
# program (functional_tests.go, shipped in the minio-go module this
# repository requires, built unchanged outside the repository) in its full
# mode against a freshly built objectgateway, and fails when a test fails
# that is not one of the known differences below.
#
# Each known difference is a test whose expectation is MinIO's behaviour,
# not S3's, or that S3 and ObjectGateway answer alike and the test does
# not accept; the reason is given beside it. A known difference that
# passes is reported, not failed.
#
# Usage: bash .ci/minio-functional.sh
#   E2E_BIN=path   use this gateway binary instead of building one
#   GO=path        the go command (default: go on PATH, else /usr/local/go/bin/go)
set -euo pipefail

# shellcheck source=.ci/gateway.sh
source "$(dirname "${BASH_SOURCE[0]}")/gateway.sh"

declare -A KNOWN=(
	[testListMultipartUpload]="expects the uploads of the key named by key-marker without upload-id-marker, and empty Initiator, Owner and StorageClass (MinIO); S3 lists only keys after key-marker then, with the initiator and owner"
	[testGetObjectAttributesErrorCases]="asks for a random UUID as version id: not a version id of this gateway, so InvalidArgument, as S3 answers a malformed one; MinIO's version ids are UUIDs"
	[testMakeBucketError]="signs for eu-central-1: one region per gateway, AuthorizationHeaderMalformed as S3's regional endpoints answer"
	[testMakeBucketRegions]="signs for eu-central-1, as above"
	[testMakeBucketErrorV2]="LocationConstraint eu-west-1 with Signature Version 2: IllegalLocationConstraintException, as a regional S3 endpoint"
	[testMakeBucketRegionsV2]="LocationConstraint eu-west-1, as above"
	[testGetObjectACLContext]="expects a server other than AWS to answer a canned ACL as private; the gateway keeps public-read-write, as S3"
	[testListUnsorted]="ListObjects with MinIO's metadata=true extension"
	[testTrailingChecksums]="expects GetObject ?partNumber of a FULL_OBJECT multipart object to answer the part's CRC32C; S3 answers no checksum for a part of a FULL_OBJECT upload"
	[testPresignedPostPolicyWrongFile]="matches the raw error body for literal quotes; the gateway's XML escapes them (&#34;), which XML readers decode"
)

# The test program, from the module cache at the version go.mod requires.
ver=$(cd "$REPO" && "$GO" list -m -f '{{.Version}}' github.com/minio/minio-go/v7)
dir=$(cd "$REPO" && "$GO" mod download -json "github.com/minio/minio-go/v7@$ver" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
mkdir -p "$WORK/prog"
# Its build tag keeps it out of the minio-go package; built as a program
# of its own module it needs none.
sed '1s|^//go:build mint$||' "$dir/functional_tests.go" >"$WORK/prog/main.go"
printf 'module functional\n\ngo 1.24\n\nrequire github.com/minio/minio-go/v7 %s\n' "$ver" >"$WORK/prog/go.mod"
cp "$REPO/go.sum" "$WORK/prog/go.sum"
(cd "$WORK/prog" && GOFLAGS=-mod=mod "$GO" build -o "$WORK/functional" .)

start_gateway
echo "minio-functional: minio-go $ver functional tests against $GW_URL"
rc=0
(cd "$WORK" && TMPDIR=$WORK SERVER_ENDPOINT=${GW_URL#http://} ACCESS_KEY=$GW_KEY SECRET_KEY=$GW_SECRET ENABLE_HTTPS=0 \
	MINT_MODE=full RUN_ON_FAIL=1 timeout 900 "$WORK/functional" >"$WORK/results.json" 2>"$WORK/stderr.log") || rc=$?
if ((rc != 0)); then
	echo "minio-functional: the test program exited with $rc"
	tail -20 "$WORK/stderr.log"
	tail -5 "$WORK/results.json"
	exit 1
fi

python3 - "$WORK/results.json" "${!KNOWN[@]}" <<'EOF'
import collections, json, sys

path, known = sys.argv[1], set(sys.argv[2:])
status = collections.defaultdict(set)  # test -> statuses
messages = collections.defaultdict(list)
for line in open(path):
    line = line.strip()
    if not line.startswith("{"):
        continue
    try:
        d = json.loads(line)
    except ValueError:
        continue
    name = d.get("name", "").removeprefix("minio-go: ")
    status[name].add(d.get("status"))
    if d.get("status") == "FAIL":
        messages[name].append("%s: %s %s" % (d.get("function"), d.get("message"), (d.get("error") or "")[:300]))
failed = sorted(n for n, s in status.items() if "FAIL" in s)
passed = sorted(n for n, s in status.items() if "FAIL" not in s and "PASS" in s)
unexpected = [n for n in failed if n not in known]
print("minio-functional: %d tests passed, %d failed (%d known differences)" % (len(passed), len(failed), len(failed) - len(unexpected)))
for n in sorted(known):
    if n in passed:
        print("minio-functional: known difference %s passes now" % n)
for n in unexpected:
    print("minio-functional: FAIL %s" % n)
    for m in messages[n][:5]:
        print("    " + m)
sys.exit(1 if unexpected or not passed else 0)
EOF
