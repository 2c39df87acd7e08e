#!/usr/bin/env bash
# e2e-awscli.sh drives a freshly built objectgateway with the real AWS CLI v2
# (Debian's awscli, /usr/bin/aws) and then with boto3 (.ci/e2e_boto3.py).
#
# It builds ./cmd/objectgateway (or uses $E2E_BIN when set), starts it on a
# free loopback port over a temporary root (under $TMPDIR, which
# pkg/testfs/onfs points at the filesystem under test), runs each step,
# prints one line per check and a final "e2e-awscli: N passed, M failed"
# line, and exits non-zero if any check failed. Every external command is bounded by a
# timeout; the gateway and temporary directories are removed on exit.
#
# The main flows then run again over HTTPS against a second gateway started
# with --tls-self-signed, the AWS CLI trusting its certificate through
# --ca-bundle. Last come versioning and Object Lock through s3api, and
# version listings and reads through rclone's --s3-versions (Debian's
# rclone; outside CI its checks are skipped when it is missing).
#
# Usage: bash .ci/e2e-awscli.sh
#   E2E_BIN=path   use this gateway binary instead of building one
#   E2E_READY_TIMEOUT=s  seconds to wait for the first HTTP answer (10)
#   E2E_TLS=0      skip the HTTPS rerun (the filesystem matrix sets it)
#   GO=path        the go command to build with (default: go on PATH, else
#                  /usr/local/go/bin/go)
set -euo pipefail

readonly AWS=/usr/bin/aws   # Debian's AWS CLI v2, not whatever "aws" is first on PATH
readonly PY=/usr/bin/python3 # Debian's python3 with python3-boto3
readonly STEP_TIMEOUT=120    # seconds for one CLI invocation
readonly READY_TIMEOUT=${E2E_READY_TIMEOUT:-10} # seconds for the gateway to answer HTTP

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/e2e-awscli.XXXXXX")
GW_PID=""
TLS_PID=""
LC_PID=""

# stop_gw PID stops one gateway: 5 s to shut down cleanly, then insist.
stop_gw() {
	local pid=$1
	if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
		for _ in {1..50}; do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
}

cleanup() {
	stop_gw "$GW_PID"
	stop_gw "$TLS_PID"
	stop_gw "$LC_PID"
	# A gateway run as root sets the immutable flag on the files of
	# versions under Object Lock, and the checks leave one under a
	# COMPLIANCE retention that no request can lift.
	if command -v chattr >/dev/null; then
		chattr -R -i "$WORK" 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
	echo "e2e-awscli: $*" >&2
	exit 1
}

[[ -x "$AWS" ]] || die "$AWS not found (apt-get install awscli)"
command -v curl >/dev/null || die "curl not found"
[[ -x "$PY" ]] || die "$PY not found"

# Hostile file names must survive Python's filesystem encoding in CI.
export LC_ALL=C.UTF-8

GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
ROOTDIR=$WORK/root # the gateway's POSIX root
mkdir -p "$ROOTDIR"

if [[ -n "${E2E_BIN:-}" ]]; then
	BIN=$E2E_BIN
else
	BIN=$WORK/objectgateway
	echo "building $BIN"
	(cd "$REPO" && "$GO" build -o "$BIN" ./cmd/objectgateway) || die "go build failed"
fi

freeport() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
PORT=$(freeport)
EP=http://127.0.0.1:$PORT

export OBJECTGATEWAY_ACCESS_KEY=e2eaccesskey
export OBJECTGATEWAY_SECRET_KEY=e2e-secret-key-0123456789abcdef
export AWS_ACCESS_KEY_ID=$OBJECTGATEWAY_ACCESS_KEY
export AWS_SECRET_ACCESS_KEY=$OBJECTGATEWAY_SECRET_KEY
export AWS_DEFAULT_REGION=us-east-1
export AWS_REGION=us-east-1
export AWS_CONFIG_FILE=$WORK/aws-config
export AWS_SHARED_CREDENTIALS_FILE=$WORK/aws-credentials # absent on purpose
export AWS_EC2_METADATA_DISABLED=true
export AWS_PAGER=""
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 || true
cat >"$AWS_CONFIG_FILE" <<'EOF'
[default]
region = us-east-1
cli_pager =
s3 =
    addressing_style = path
EOF

"$BIN" serve --root "$ROOTDIR" --listen "127.0.0.1:$PORT" >"$WORK/gateway.log" 2>&1 &
GW_PID=$!

# Readiness: any HTTP answer at all (an anonymous GET / is a 403 XML error).
ready=""
deadline=$((SECONDS + READY_TIMEOUT))
while ((SECONDS < deadline)); do
	if ! kill -0 "$GW_PID" 2>/dev/null; then
		cat "$WORK/gateway.log" >&2
		die "gateway exited before answering"
	fi
	code=$(curl -s -o /dev/null --max-time 1 -w '%{http_code}' "$EP/" || true)
	if [[ -n "$code" && "$code" != "000" ]]; then
		ready=1
		break
	fi
	sleep 0.1
done
if [[ -z "$ready" ]]; then
	tail -n 50 "$WORK/gateway.log" >&2
	die "gateway did not answer on $EP within ${READY_TIMEOUT}s"
fi
echo "gateway ready on $EP"

passed=0
failed=0

# check NAME CMD... runs one check. Step functions run with errexit suspended
# (they are called from an if), so each one chains its commands with &&.
check() {
	local name=$1
	shift
	if "$@" >"$WORK/step.log" 2>&1; then
		passed=$((passed + 1))
		echo "ok   $name"
	else
		failed=$((failed + 1))
		echo "FAIL $name"
		tail -n 30 "$WORK/step.log" | sed 's/^/     /'
	fi
}

aws_() { timeout "$STEP_TIMEOUT" "$AWS" --endpoint-url "$EP" "$@"; }

# Deterministic pseudo-random content.
gen() { "$PY" -c 'import random, sys; sys.stdout.buffer.write(random.Random(int(sys.argv[1])).randbytes(int(sys.argv[2])))' "$1" "$2"; }

BUCKET=e2e-awscli
DATA=$WORK/data
mkdir -p "$DATA" "$WORK/down"
gen 1 1024 >"$DATA/small.bin"
gen 2 $((5 * 1024 * 1024)) >"$DATA/big.bin"
# 100 MiB for aws s3 cp's multipart; for multipart by hand, the smallest
# part allowed before the last one (5 MiB) and a short last part.
gen 4 $((100 * 1024 * 1024)) >"$DATA/huge.bin"
gen 5 $((5 * 1024 * 1024)) >"$DATA/part1.bin"
gen 6 123457 >"$DATA/part2.bin"

# A tree with nested folders and names that trip up encoders and sync logic:
# a file "a" beside a directory "a.d" sorts differently as paths and as keys.
TREE=$WORK/tree
mkdir -p "$TREE/sp ace/dir two" "$TREE/café" "$TREE/a.d" "$TREE/d1/d2/d3/d4/d5/d6/d7/d8"
printf 'spaces\n' >"$TREE/sp ace/dir two/file one.txt"
printf 'plus\n' >"$TREE/plus+sign.txt"
printf 'percent\n' >"$TREE/100%.txt"
printf 'percent-encoded lookalike\n' >"$TREE/a%20b.txt"
printf 'unicode\n' >"$TREE/café/é.txt"
printf 'hash\n' >"$TREE/hash#tag.txt"
printf 'amp\n' >"$TREE/amp&and.txt"
printf 'equals\n' >"$TREE/k=v.txt"
printf 'file a\n' >"$TREE/a"
printf 'file in a.d\n' >"$TREE/a.d/inside.txt"
printf 'deep\n' >"$TREE/d1/d2/d3/d4/d5/d6/d7/d8/deep.txt"
: >"$TREE/empty.txt"
gen 3 4096 >"$TREE/d1/blob.bin"
# Old, fixed mtimes make "sync transfers nothing" independent of how finely
# the gateway reports LastModified.
find "$TREE" -exec touch -h -d '2020-01-02 03:04:05 UTC' {} +

step_mb() { aws_ s3 mb "s3://$BUCKET"; }

step_cp_up() {
	aws_ s3 cp "$DATA/small.bin" "s3://$BUCKET/small.bin" &&
		aws_ s3 cp "$DATA/big.bin" "s3://$BUCKET/big.bin"
}

step_cp_down() {
	aws_ s3 cp "s3://$BUCKET/small.bin" "$WORK/down/small.bin" &&
		aws_ s3 cp "s3://$BUCKET/big.bin" "$WORK/down/big.bin" &&
		cmp "$DATA/small.bin" "$WORK/down/small.bin" &&
		cmp "$DATA/big.bin" "$WORK/down/big.bin"
}

step_ls() {
	local out
	out=$(aws_ s3 ls "s3://$BUCKET/") &&
		echo "$out" &&
		grep -Eq '[[:space:]]1024 small\.bin$' <<<"$out" &&
		grep -Eq '[[:space:]]5242880 big\.bin$' <<<"$out"
}

step_sync_up() {
	aws_ s3 sync "$TREE" "s3://$BUCKET/tree" &&
		aws_ s3 ls --recursive "s3://$BUCKET/tree/" &&
		[[ $(aws_ s3 ls --recursive "s3://$BUCKET/tree/" | wc -l) -eq $(find "$TREE" -type f | wc -l) ]]
}

step_sync_down() {
	mkdir -p "$WORK/tree-down" &&
		aws_ s3 sync "s3://$BUCKET/tree" "$WORK/tree-down" &&
		diff -r "$TREE" "$WORK/tree-down"
}

# A second sync of an unchanged tree must transfer nothing.
step_sync_idempotent() {
	local out
	out=$(aws_ s3 sync "$TREE" "s3://$BUCKET/tree") &&
		echo "$out" &&
		[[ -z "$out" ]]
}

step_presign() {
	local url
	url=$(aws_ s3 presign "s3://$BUCKET/big.bin" --expires-in 300) &&
		curl -sS --fail --max-time 60 -o "$WORK/down/presigned.bin" "$url" &&
		cmp "$DATA/big.bin" "$WORK/down/presigned.bin"
}

step_head_object() {
	local out
	out=$(aws_ s3api head-object --bucket "$BUCKET" --key big.bin \
		--query '[ContentLength, ETag]' --output text) &&
		echo "$out" &&
		[[ $(cut -f1 <<<"$out") == 5242880 ]] &&
		[[ $(cut -f2 <<<"$out") == \"$(md5sum "$DATA/big.bin" | cut -d' ' -f1)\" ]]
}

# multipartETag FILE PARTSIZE prints S3's ETag of FILE uploaded in parts of
# PARTSIZE bytes: the MD5 of the parts' MD5s, "-" and the part count, quoted.
multipartETag() {
	"$PY" -c '
import hashlib, sys
size = int(sys.argv[2])
sums = []
with open(sys.argv[1], "rb") as f:
    while chunk := f.read(size):
        sums.append(hashlib.md5(chunk).digest())
print("\"%s-%d\"" % (hashlib.md5(b"".join(sums)).hexdigest(), len(sums)))
' "$1" "$2"
}

# aws s3 cp switches to multipart above 8 MiB (8 MiB parts, concurrently).
step_cp_huge() {
	local etag
	aws_ s3 cp --only-show-errors "$DATA/huge.bin" "s3://$BUCKET/huge.bin" &&
		aws_ s3 cp --only-show-errors "s3://$BUCKET/huge.bin" "$WORK/down/huge.bin" &&
		cmp "$DATA/huge.bin" "$WORK/down/huge.bin" &&
		etag=$(aws_ s3api head-object --bucket "$BUCKET" --key huge.bin --query ETag --output text) &&
		echo "ETag $etag" &&
		[[ $etag == "$(multipartETag "$DATA/huge.bin" $((8 * 1024 * 1024)))" ]] &&
		cmp "$DATA/huge.bin" "$ROOTDIR/$BUCKET/huge.bin"
}

# create-multipart-upload / upload-part x2 / list-parts / complete, by hand.
step_mpu_by_hand() {
	local id e1 e2 parts etag count
	id=$(aws_ s3api create-multipart-upload --bucket "$BUCKET" --key manual.bin \
		--content-type application/x-manual --query UploadId --output text) &&
		echo "upload $id" &&
		e1=$(aws_ s3api upload-part --bucket "$BUCKET" --key manual.bin --upload-id "$id" \
			--part-number 1 --body "$DATA/part1.bin" --query ETag --output text) &&
		e2=$(aws_ s3api upload-part --bucket "$BUCKET" --key manual.bin --upload-id "$id" \
			--part-number 2 --body "$DATA/part2.bin" --query ETag --output text) &&
		[[ $e1 == "\"$(md5sum "$DATA/part1.bin" | cut -d' ' -f1)\"" ]] &&
		[[ $e2 == "\"$(md5sum "$DATA/part2.bin" | cut -d' ' -f1)\"" ]] &&
		parts=$(aws_ s3api list-parts --bucket "$BUCKET" --key manual.bin --upload-id "$id" \
			--query 'Parts[].[PartNumber, Size]' --output text) &&
		echo "$parts" &&
		[[ $parts == "$(printf '1\t%d\n2\t%d' $((5 * 1024 * 1024)) 123457)" ]] &&
		"$PY" -c 'import json, sys; json.dump({"Parts": [{"PartNumber": i + 1, "ETag": e} for i, e in enumerate(sys.argv[1:])]}, sys.stdout)' \
			"$e1" "$e2" >"$WORK/parts.json" &&
		cat "$WORK/parts.json" && echo &&
		etag=$(aws_ s3api complete-multipart-upload --bucket "$BUCKET" --key manual.bin --upload-id "$id" \
			--multipart-upload "file://$WORK/parts.json" --query ETag --output text) &&
		echo "ETag $etag" &&
		cat "$DATA/part1.bin" "$DATA/part2.bin" >"$WORK/manual.bin" &&
		[[ $etag == "$(multipartETag "$WORK/manual.bin" $((5 * 1024 * 1024)))" ]] &&
		count=$(aws_ s3api head-object --bucket "$BUCKET" --key manual.bin --part-number 1 \
			--query PartsCount --output text) &&
		echo "PartsCount $count" &&
		[[ $count == 2 ]] &&
		aws_ s3api get-object --bucket "$BUCKET" --key manual.bin --part-number 2 "$WORK/down/part2.bin" >/dev/null &&
		cmp "$DATA/part2.bin" "$WORK/down/part2.bin" &&
		aws_ s3 cp --only-show-errors "s3://$BUCKET/manual.bin" "$WORK/down/manual.bin" &&
		cmp "$WORK/manual.bin" "$WORK/down/manual.bin"
}

# An aborted upload is gone: not listed, its parts unknown and off the disk.
step_mpu_abort() {
	local id n out
	id=$(aws_ s3api create-multipart-upload --bucket "$BUCKET" --key aborted.bin --query UploadId --output text) &&
		aws_ s3api upload-part --bucket "$BUCKET" --key aborted.bin --upload-id "$id" \
			--part-number 1 --body "$DATA/part2.bin" >/dev/null &&
		n=$(aws_ s3api list-multipart-uploads --bucket "$BUCKET" --query 'length(Uploads || `[]`)' --output text) &&
		echo "uploads in progress before abort: $n" &&
		[[ $n == 1 ]] &&
		aws_ s3api abort-multipart-upload --bucket "$BUCKET" --key aborted.bin --upload-id "$id" &&
		n=$(aws_ s3api list-multipart-uploads --bucket "$BUCKET" --query 'length(Uploads || `[]`)' --output text) &&
		echo "uploads in progress after abort: $n" &&
		[[ $n == 0 ]] || return 1
	if out=$(aws_ s3api list-parts --bucket "$BUCKET" --key aborted.bin --upload-id "$id" 2>&1); then
		echo "list-parts of an aborted upload succeeds"
		return 1
	fi
	echo "$out"
	grep -q NoSuchUpload <<<"$out" &&
		[[ -z $(find "$ROOTDIR/.objectgateway/multipart" -type f 2>/dev/null) ]]
}

# The objects are plain files under <root>/<bucket>/, byte for byte.
step_on_disk() {
	ls -la "$ROOTDIR/$BUCKET" &&
		cmp "$DATA/small.bin" "$ROOTDIR/$BUCKET/small.bin" &&
		cmp "$DATA/big.bin" "$ROOTDIR/$BUCKET/big.bin" &&
		diff -r "$TREE" "$ROOTDIR/$BUCKET/tree"
}

step_boto3() {
	"$PY" -c 'import boto3' || {
		echo "python3-boto3 is not installed for $PY"
		return 1
	}
	# Its own per-check lines are printed after the check line below.
	E2E_ENDPOINT=$EP timeout 300 "$PY" "$REPO/.ci/e2e_boto3.py" >"$WORK/boto3.log" 2>&1
}

# s3cmd signing with Signature Version 2 (--signature-v2): mb, put, ls,
# get and cmp, del, rb, path-style, from a configuration of its own.
step_s3cmd_sigv2() {
	local cfg=$WORK/s3cmd.cfg bucket=e2e-s3cmd-sigv2 hostport=${EP#http://}
	command -v s3cmd >/dev/null || {
		echo "s3cmd is not installed (apt-get install s3cmd)"
		return 1
	}
	printf '[default]\naccess_key = %s\nsecret_key = %s\nhost_base = %s\nhost_bucket = %s\nbucket_location = us-east-1\nuse_https = False\nsignature_v2 = True\n' \
		"$OBJECTGATEWAY_ACCESS_KEY" "$OBJECTGATEWAY_SECRET_KEY" "$hostport" "$hostport" >"$cfg"
	local s3c=(timeout "$STEP_TIMEOUT" s3cmd -c "$cfg" --signature-v2 --no-progress)
	"${s3c[@]}" mb "s3://$bucket" &&
		"${s3c[@]}" put "$DATA/small.bin" "s3://$bucket/v2/small.bin" &&
		"${s3c[@]}" ls "s3://$bucket/v2/" | grep -q "s3://$bucket/v2/small.bin" &&
		"${s3c[@]}" get --force "s3://$bucket/v2/small.bin" "$WORK/down/s3cmd-small.bin" &&
		cmp "$DATA/small.bin" "$WORK/down/s3cmd-small.bin" &&
		"${s3c[@]}" del "s3://$bucket/v2/small.bin" &&
		"${s3c[@]}" rb "s3://$bucket"
}

step_rm_recursive() {
	aws_ s3 rm --recursive "s3://$BUCKET" &&
		[[ -z $(aws_ s3 ls --recursive "s3://$BUCKET/") ]] &&
		[[ ! -e "$ROOTDIR/$BUCKET/big.bin" ]]
}

step_rb() {
	local out
	aws_ s3 rb "s3://$BUCKET" || return 1
	if out=$(aws_ s3api head-bucket --bucket "$BUCKET" 2>&1); then
		echo "head-bucket still succeeds after rb"
		return 1
	fi
	echo "$out"
	grep -q '(404)' <<<"$out"
}

# A bucket made public with the standard public-read policy is readable by
# plain curl without credentials; a private bucket answers 403; writes stay
# refused; a policy naming another bucket is refused with MalformedPolicy.
# The canned bucket ACL public-read means what it means in S3: anyone may
# list the bucket but not read its objects, until an object's own ACL is
# public-read.
step_public_read() {
	local pub=e2e-public priv=e2e-private acl=e2e-acl code out
	aws_ s3 mb "s3://$pub" && aws_ s3 mb "s3://$priv" &&
		aws_ s3 cp --only-show-errors "$DATA/small.bin" "s3://$pub/site/small.bin" &&
		aws_ s3 cp --only-show-errors "$DATA/small.bin" "s3://$priv/site/small.bin" &&
		printf '{"Version":"2012-10-17","Statement":[{"Sid":"PublicRead","Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::%s/*"}]}' "$pub" >"$WORK/policy.json" &&
		aws_ s3api put-bucket-policy --bucket "$pub" --policy "file://$WORK/policy.json" &&
		aws_ s3api get-bucket-policy --bucket "$pub" --query Policy --output text | grep -q PublicRead &&
		curl -sS --fail --max-time 30 -o "$WORK/down/public.bin" "$EP/$pub/site/small.bin" &&
		cmp "$DATA/small.bin" "$WORK/down/public.bin" &&
		code=$(curl -sS --max-time 30 -o "$WORK/private.xml" -w '%{http_code}' "$EP/$priv/site/small.bin") &&
		echo "private bucket: $code $(cat "$WORK/private.xml")" &&
		[[ $code == 403 ]] && grep -q '<Code>AccessDenied</Code>' "$WORK/private.xml" &&
		code=$(curl -sS --max-time 30 -o /dev/null -w '%{http_code}' -X PUT --data-binary x "$EP/$pub/site/new.bin") &&
		echo "anonymous PUT on the public bucket: $code" &&
		[[ $code == 403 ]] || return 1
	if out=$(aws_ s3api put-bucket-policy --bucket "$pub" --policy '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::elsewhere/*"}]}' 2>&1); then
		echo "a policy on another bucket's resource was accepted"
		return 1
	fi
	echo "$out"
	grep -q MalformedPolicy <<<"$out" &&
		aws_ s3api create-bucket --bucket "$acl" --acl public-read >/dev/null &&
		aws_ s3 cp --only-show-errors "$DATA/small.bin" "s3://$acl/small.bin" &&
		curl -sS --fail --max-time 30 -o "$WORK/acl-list.xml" "$EP/$acl?list-type=2" &&
		grep -q '<Key>small.bin</Key>' "$WORK/acl-list.xml" &&
		code=$(curl -sS --max-time 30 -o /dev/null -w '%{http_code}' "$EP/$acl/small.bin") &&
		echo "object in a public-read bucket, private object ACL: $code" &&
		[[ $code == 403 ]] &&
		aws_ s3api put-object-acl --bucket "$acl" --key small.bin --acl public-read &&
		curl -sS --fail --max-time 30 -o /dev/null "$EP/$acl/small.bin" &&
		aws_ s3api put-bucket-acl --bucket "$acl" --acl private &&
		code=$(curl -sS --max-time 30 -o /dev/null -w '%{http_code}' "$EP/$acl?list-type=2") &&
		echo "list after put-bucket-acl private: $code" &&
		[[ $code == 403 ]] &&
		aws_ s3 rb --force "s3://$pub" && aws_ s3 rb --force "s3://$priv" && aws_ s3 rb --force "s3://$acl"
}

# A bucket policy names a user and carries Conditions: root's bucket lets
# the user AKIDE2EBOB write, read and delete under drop/ from 127.0.0.0/8
# only, and a Deny of deletes to every caller overrides that Allow; the
# user is refused everywhere else. The user is added through the serving
# gateway's control socket.
step_policy_user() {
	local b=e2e-policy out secret
	out=$("$BIN" user add bob --access-key AKIDE2EBOB --root "$ROOTDIR") || { echo "$out"; return 1; }
	secret=$(sed -n 's/^  secret key: //p' <<<"$out")
	[[ -n $secret ]] || { echo "no secret in: $out"; return 1; }
	bob_() { AWS_ACCESS_KEY_ID=AKIDE2EBOB AWS_SECRET_ACCESS_KEY=$secret aws_ "$@"; }
	aws_ s3 mb "s3://$b" &&
		printf '{"Version":"2012-10-17","Statement":[{"Sid":"BobDrop","Effect":"Allow","Principal":{"AWS":["arn:aws:iam:::user/AKIDE2EBOB"]},"Action":["s3:PutObject","s3:GetObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::%s/drop/*","Condition":{"IpAddress":{"aws:SourceIp":"127.0.0.0/8"}}},{"Sid":"NoDeletes","Effect":"Deny","Principal":"*","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::%s/*","Condition":{"StringNotEquals":{"aws:username":"nobody"}}}]}' "$b" "$b" >"$WORK/policy-user.json" &&
		aws_ s3api put-bucket-policy --bucket "$b" --policy "file://$WORK/policy-user.json" &&
		bob_ s3 cp --only-show-errors "$DATA/small.bin" "s3://$b/drop/small.bin" &&
		bob_ s3 cp --only-show-errors "s3://$b/drop/small.bin" "$WORK/down/bob.bin" &&
		cmp "$DATA/small.bin" "$WORK/down/bob.bin" || return 1
	if out=$(bob_ s3 cp --only-show-errors "$DATA/small.bin" "s3://$b/other/small.bin" 2>&1); then
		echo "bob wrote outside drop/"
		return 1
	fi
	echo "bob outside drop/: $out"
	grep -q AccessDenied <<<"$out" || return 1
	if out=$(bob_ s3api delete-object --bucket "$b" --key drop/small.bin 2>&1); then
		echo "bob deleted under the Deny"
		return 1
	fi
	echo "bob delete-object: $out"
	grep -q AccessDenied <<<"$out" &&
		aws_ s3api delete-bucket-policy --bucket "$b" &&
		aws_ s3 rb --force "s3://$b" &&
		"$BIN" user remove AKIDE2EBOB --root "$ROOTDIR" >/dev/null
}

# ACLs and Object Ownership: put-object-acl --grant-read to another user
# (by canonical id, then by email), who then reads the object and nothing
# else; put/get-bucket-ownership-controls; BucketOwnerEnforced refuses an
# ACL; Block Public Access refuses a public ACL.
step_acl() {
	local b=e2e-acl-grants out secret id
	out=$("$BIN" user add dave --access-key AKIDE2EDAVE --email dave@example.com --root "$ROOTDIR") || { echo "$out"; return 1; }
	secret=$(sed -n 's/^  secret key: //p' <<<"$out")
	[[ -n $secret ]] || { echo "no secret in: $out"; return 1; }
	id=$(printf %s AKIDE2EDAVE | sha256sum | cut -d' ' -f1)
	dave_() { AWS_ACCESS_KEY_ID=AKIDE2EDAVE AWS_SECRET_ACCESS_KEY=$secret aws_ "$@"; }
	aws_ s3 mb "s3://$b" &&
		aws_ s3 cp --only-show-errors "$DATA/small.bin" "s3://$b/shared.bin" &&
		aws_ s3 cp --only-show-errors "$DATA/small.bin" "s3://$b/private.bin" || return 1
	if out=$(dave_ s3 cp --only-show-errors "s3://$b/shared.bin" "$WORK/down/dave.bin" 2>&1); then
		echo "dave read an object before any grant"
		return 1
	fi
	echo "dave before the grant: $out"
	aws_ s3api put-object-acl --bucket "$b" --key shared.bin --grant-read "id=$id" &&
		dave_ s3 cp --only-show-errors "s3://$b/shared.bin" "$WORK/down/dave.bin" &&
		cmp "$DATA/small.bin" "$WORK/down/dave.bin" &&
		aws_ s3api get-object-acl --bucket "$b" --key shared.bin --query 'Grants[?Permission==`READ`].Grantee.ID' --output text | grep -q "$id" || return 1
	if out=$(dave_ s3 cp --only-show-errors "s3://$b/private.bin" "$WORK/down/dave2.bin" 2>&1); then
		echo "dave read an object not granted to him"
		return 1
	fi
	echo "dave on the private object: $out"
	grep -q '403' <<<"$out" &&
		aws_ s3api put-object-acl --bucket "$b" --key private.bin --grant-read 'emailAddress=dave@example.com' &&
		dave_ s3 cp --only-show-errors "s3://$b/private.bin" "$WORK/down/dave2.bin" || return 1
	if out=$(aws_ s3api put-object-acl --bucket "$b" --key private.bin --grant-read 'emailAddress=nobody@example.com' 2>&1); then
		echo "a grant to an unknown email was accepted"
		return 1
	fi
	echo "$out"
	grep -q UnresolvableGrantByEmailAddress <<<"$out" &&
		aws_ s3api put-bucket-ownership-controls --bucket "$b" --ownership-controls 'Rules=[{ObjectOwnership=BucketOwnerEnforced}]' &&
		aws_ s3api get-bucket-ownership-controls --bucket "$b" --query 'OwnershipControls.Rules[0].ObjectOwnership' --output text | grep -qx BucketOwnerEnforced || return 1
	if out=$(aws_ s3api put-object --bucket "$b" --key p.bin --body "$DATA/small.bin" --acl public-read 2>&1); then
		echo "BucketOwnerEnforced took an ACL"
		return 1
	fi
	echo "$out"
	grep -q AccessControlListNotSupported <<<"$out" &&
		aws_ s3api delete-bucket-ownership-controls --bucket "$b" || return 1
	if out=$(aws_ s3api get-bucket-ownership-controls --bucket "$b" 2>&1); then
		echo "ownership controls still there after delete"
		return 1
	fi
	echo "$out"
	grep -q OwnershipControlsNotFoundError <<<"$out" &&
		aws_ s3api put-public-access-block --bucket "$b" --public-access-block-configuration BlockPublicAcls=true || return 1
	if out=$(aws_ s3api put-object-acl --bucket "$b" --key shared.bin --acl public-read 2>&1); then
		echo "BlockPublicAcls took a public ACL"
		return 1
	fi
	echo "$out"
	grep -q AccessDenied <<<"$out" &&
		aws_ s3 rb --force "s3://$b" &&
		"$BIN" user remove AKIDE2EDAVE --root "$ROOTDIR" >/dev/null
}

# An identity policy attached with `objectgateway user policy put` through
# the serving gateway's control socket: the user AKIDE2ECAROL may read and
# list only under ro/ of root's bucket (s3:prefix condition on the
# listing); it is refused a write there, a read and a listing outside the
# prefix; once the policy is removed it reads nothing.
step_identity_policy() {
	local b=e2e-ident out secret
	out=$("$BIN" user add carol --access-key AKIDE2ECAROL --root "$ROOTDIR") || { echo "$out"; return 1; }
	secret=$(sed -n 's/^  secret key: //p' <<<"$out")
	[[ -n $secret ]] || { echo "no secret in: $out"; return 1; }
	carol_() { AWS_ACCESS_KEY_ID=AKIDE2ECAROL AWS_SECRET_ACCESS_KEY=$secret aws_ "$@"; }
	aws_ s3 mb "s3://$b" &&
		aws_ s3 cp --only-show-errors "$DATA/small.bin" "s3://$b/ro/small.bin" &&
		aws_ s3 cp --only-show-errors "$DATA/small.bin" "s3://$b/other/small.bin" &&
		printf '{"Version":"2012-10-17","Statement":[{"Sid":"ReadRo","Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::%s/ro/*"},{"Sid":"ListRo","Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::%s","Condition":{"StringLike":{"s3:prefix":"ro/*"}}}]}' "$b" "$b" >"$WORK/identity.json" &&
		"$BIN" user policy put AKIDE2ECAROL "$WORK/identity.json" --root "$ROOTDIR" &&
		"$BIN" user policy get AKIDE2ECAROL --root "$ROOTDIR" | grep -q ReadRo &&
		"$BIN" user list --root "$ROOTDIR" | grep AKIDE2ECAROL | grep -q identity &&
		carol_ s3 cp --only-show-errors "s3://$b/ro/small.bin" "$WORK/down/carol.bin" &&
		cmp "$DATA/small.bin" "$WORK/down/carol.bin" &&
		carol_ s3 ls "s3://$b/ro/" | grep -q small.bin || return 1
	if out=$(carol_ s3 cp --only-show-errors "$DATA/small.bin" "s3://$b/ro/new.bin" 2>&1); then
		echo "carol wrote under a read-only policy"
		return 1
	fi
	echo "carol write in ro/: $out"
	grep -q AccessDenied <<<"$out" || return 1
	if out=$(carol_ s3api get-object --bucket "$b" --key other/small.bin "$WORK/down/carol-other.bin" 2>&1); then
		echo "carol read outside ro/"
		return 1
	fi
	echo "carol read outside ro/: $out"
	grep -q AccessDenied <<<"$out" || return 1
	if out=$(carol_ s3 ls "s3://$b/other/" 2>&1); then
		echo "carol listed outside ro/"
		return 1
	fi
	echo "carol ls outside ro/: $out"
	grep -q AccessDenied <<<"$out" &&
		"$BIN" user policy delete AKIDE2ECAROL --root "$ROOTDIR" || return 1
	if out=$(carol_ s3api get-object --bucket "$b" --key ro/small.bin "$WORK/down/carol-after.bin" 2>&1); then
		echo "carol read after the policy was removed"
		return 1
	fi
	echo "carol read after delete: $out"
	grep -q AccessDenied <<<"$out" &&
		aws_ s3 rb --force "s3://$b" &&
		"$BIN" user remove AKIDE2ECAROL --root "$ROOTDIR" >/dev/null
}

check "mb s3://$BUCKET" step_mb
check "cp up 1 KiB and 5 MiB" step_cp_up
check "cp down and cmp" step_cp_down
check "ls shows both objects" step_ls
check "sync up a tree with odd names" step_sync_up
check "sync down and diff -r" step_sync_down
check "sync again transfers nothing" step_sync_idempotent
check "presign + curl and cmp" step_presign
check "s3api head-object size and ETag" step_head_object
check "objects are plain files on disk" step_on_disk
check "cp 100 MiB up and down (multipart) and cmp" step_cp_huge
check "s3api multipart by hand" step_mpu_by_hand
check "s3api abort-multipart-upload" step_mpu_abort
check "public-read bucket by plain curl, private 403" step_public_read
check "bucket policy with a user principal and Conditions" step_policy_user
check "ACL grants, ownership controls, public access block" step_acl
check "identity policy: read-only on a prefix (user policy put)" step_identity_policy
check "boto3 suite" step_boto3
if [[ -s "$WORK/boto3.log" ]]; then
	sed 's/^/     /' "$WORK/boto3.log"
fi
check "s3cmd --signature-v2 mb/put/ls/get/del/rb" step_s3cmd_sigv2
check "rm --recursive" step_rm_recursive
check "rb" step_rb

# summary prints the gateways' logs when a check failed and the final
# line, and exits with the run's status.
summary() {
	if ((failed > 0)); then
		echo "--- gateway log (last 50 lines) ---"
		tail -n 50 "$WORK/gateway.log"
		if [[ -f "$WORK/tls-gateway.log" ]]; then
			echo "--- TLS gateway log (last 50 lines) ---"
			tail -n 50 "$WORK/tls-gateway.log"
		fi
		if [[ -f "$WORK/lc-gateway.log" ]]; then
			echo "--- lifecycle gateway log (last 50 lines) ---"
			tail -n 50 "$WORK/lc-gateway.log"
		fi
	fi
	echo "e2e-awscli: $passed passed, $failed failed"
	((failed == 0))
	exit
}

# Lifecycle rules acting, with the test knobs: a third gateway on its own
# root where a lifecycle day lasts 2 s and the worker starts a pass every
# second, so that a rule of Days 1 acts within a few seconds. The flow puts
# a configuration with the CLI, reads it back, sees x-amz-expiration on a
# matching object, and polls (bounded, 60 s) until the object under the
# rule's prefix and an abandoned upload are gone while the others stay.
lifecycle_flow() {
	local root port ep bucket=e2e-lifecycle
	root=$WORK/lc-root
	port=$(freeport)
	ep=http://127.0.0.1:$port
	mkdir -p "$root"
	"$BIN" serve --root "$root" --listen "127.0.0.1:$port" --lifecycle-day 2s --lifecycle-interval 1s >"$WORK/lc-gateway.log" 2>&1 &
	LC_PID=$!
	local ready="" deadline=$((SECONDS + READY_TIMEOUT)) code
	while ((SECONDS < deadline)); do
		kill -0 "$LC_PID" 2>/dev/null || break
		code=$(curl -s -o /dev/null --max-time 1 -w '%{http_code}' "$ep/" || true)
		if [[ -n "$code" && "$code" != "000" ]]; then
			ready=1
			break
		fi
		sleep 0.1
	done
	[[ -n "$ready" ]] || { tail -n 50 "$WORK/lc-gateway.log" >&2; die "the lifecycle gateway did not answer on $ep within ${READY_TIMEOUT}s"; }
	aws_lc() { timeout "$STEP_TIMEOUT" "$AWS" --endpoint-url "$ep" "$@"; }

	step_lc_put_get() {
		local out
		aws_lc s3 mb "s3://$bucket" &&
			aws_lc s3 cp "$DATA/small.bin" "s3://$bucket/expire/a.bin" &&
			aws_lc s3 cp "$DATA/small.bin" "s3://$bucket/keep/b.bin" &&
			aws_lc s3api create-multipart-upload --bucket "$bucket" --key up/abandoned.bin >/dev/null &&
			aws_lc s3api put-bucket-lifecycle-configuration --bucket "$bucket" --lifecycle-configuration '{"Rules": [
				{"ID": "expire-tmp", "Status": "Enabled", "Filter": {"Prefix": "expire/"}, "Expiration": {"Days": 1}},
				{"ID": "abort-uploads", "Status": "Enabled", "Filter": {"Prefix": "up/"}, "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1}}]}' &&
			out=$(aws_lc s3api get-bucket-lifecycle-configuration --bucket "$bucket") &&
			echo "$out" &&
			grep -q '"ID": "expire-tmp"' <<<"$out" &&
			grep -q '"DaysAfterInitiation": 1' <<<"$out" &&
			out=$(aws_lc s3api head-object --bucket "$bucket" --key keep/b.bin) &&
			! grep -q '"Expiration"' <<<"$out"
	}

	step_lc_refusal() {
		local out
		if out=$(aws_lc s3api put-bucket-lifecycle-configuration --bucket "$bucket" --lifecycle-configuration \
			'{"Rules": [{"ID": "t", "Status": "Enabled", "Filter": {"Prefix": ""}, "Transitions": [{"Days": 30, "StorageClass": "GLACIER"}]}]}' 2>&1); then
			echo "a Transition was accepted"
			return 1
		fi
		echo "$out" && grep -q InvalidRequest <<<"$out"
	}

	step_lc_acts() {
		local gone="" deadline=$((SECONDS + 60)) uploads
		while ((SECONDS < deadline)); do
			uploads=$(aws_lc s3api list-multipart-uploads --bucket "$bucket" --query 'length(Uploads || `[]`)' --output text) || return 1
			if ! aws_lc s3api head-object --bucket "$bucket" --key expire/a.bin >/dev/null 2>&1 && [[ $uploads == 0 ]]; then
				gone=1
				break
			fi
			sleep 1
		done
		[[ -n "$gone" ]] || { echo "expire/a.bin or the upload still there after 60 s"; return 1; }
		[[ ! -e "$root/$bucket/expire/a.bin" ]] &&
			aws_lc s3api head-object --bucket "$bucket" --key keep/b.bin >/dev/null &&
			[[ -e "$root/$bucket/keep/b.bin" ]] &&
			grep -q 'lifecycle pass complete' "$WORK/lc-gateway.log"
	}

	check "lifecycle: put-bucket-lifecycle-configuration and get it back" step_lc_put_get
	check "lifecycle: a Transition is refused with InvalidRequest" step_lc_refusal
	check "lifecycle: with --lifecycle-day 2s a Days 1 rule expires its prefix and aborts the upload, others stay" step_lc_acts
	stop_gw "$LC_PID"
	LC_PID=""
}
lifecycle_flow

# With E2E_TLS=0 the run ends here: the filesystem matrix runs the script
# once per filesystem, and the HTTPS flows differ from the plain ones
# only in transport, which the default run covers.
if [[ "${E2E_TLS:-1}" == 0 ]]; then
	summary
fi

# The same flows over HTTPS: a second gateway on its own root with a
# self-signed certificate, which the CLI trusts with --ca-bundle.
TLS_ROOT=$WORK/tls-root
TLS_PORT=$(freeport)
TLS_EP=https://127.0.0.1:$TLS_PORT
TLS_CA=$TLS_ROOT/.objectgateway/tls/cert.pem
mkdir -p "$TLS_ROOT"
"$BIN" serve --root "$TLS_ROOT" --listen "127.0.0.1:$TLS_PORT" --tls-self-signed >"$WORK/tls-gateway.log" 2>&1 &
TLS_PID=$!
ready=""
deadline=$((SECONDS + READY_TIMEOUT))
while ((SECONDS < deadline)); do
	if ! kill -0 "$TLS_PID" 2>/dev/null; then
		cat "$WORK/tls-gateway.log" >&2
		die "the TLS gateway exited before answering"
	fi
	code=""
	[[ -s "$TLS_CA" ]] && code=$(curl -s --cacert "$TLS_CA" -o /dev/null --max-time 1 -w '%{http_code}' "$TLS_EP/" || true)
	if [[ -n "$code" && "$code" != "000" ]]; then
		ready=1
		break
	fi
	sleep 0.1
done
[[ -n "$ready" ]] || { tail -n 50 "$WORK/tls-gateway.log" >&2; die "the TLS gateway did not answer on $TLS_EP within ${READY_TIMEOUT}s"; }
echo "TLS gateway ready on $TLS_EP"

aws_tls() { timeout "$STEP_TIMEOUT" "$AWS" --endpoint-url "$TLS_EP" --ca-bundle "$TLS_CA" "$@"; }
gen 7 $((20 * 1024 * 1024)) >"$DATA/mid.bin"
mkdir -p "$WORK/tls-down"

step_tls_cp() {
	aws_tls s3 mb "s3://$BUCKET" &&
		aws_tls s3 cp "$DATA/small.bin" "s3://$BUCKET/small.bin" &&
		aws_tls s3 cp --only-show-errors "$DATA/mid.bin" "s3://$BUCKET/mid.bin" &&
		aws_tls s3 cp "s3://$BUCKET/small.bin" "$WORK/tls-down/small.bin" &&
		aws_tls s3 cp --only-show-errors "s3://$BUCKET/mid.bin" "$WORK/tls-down/mid.bin" &&
		cmp "$DATA/small.bin" "$WORK/tls-down/small.bin" &&
		cmp "$DATA/mid.bin" "$WORK/tls-down/mid.bin" &&
		cmp "$DATA/mid.bin" "$TLS_ROOT/$BUCKET/mid.bin"
}

step_tls_ls_sync() {
	local out
	out=$(aws_tls s3 ls "s3://$BUCKET/") &&
		echo "$out" &&
		grep -Eq '[[:space:]]1024 small\.bin$' <<<"$out" &&
		aws_tls s3 sync "$TREE" "s3://$BUCKET/tree" &&
		mkdir -p "$WORK/tls-tree" &&
		aws_tls s3 sync "s3://$BUCKET/tree" "$WORK/tls-tree" &&
		diff -r "$TREE" "$WORK/tls-tree" &&
		[[ -z $(aws_tls s3 sync "$TREE" "s3://$BUCKET/tree") ]]
}

step_tls_presign() {
	local url
	url=$(aws_tls s3 presign "s3://$BUCKET/mid.bin" --expires-in 300) &&
		[[ $url == https://* ]] &&
		curl -sS --fail --cacert "$TLS_CA" --max-time 60 -o "$WORK/tls-down/presigned.bin" "$url" &&
		cmp "$DATA/mid.bin" "$WORK/tls-down/presigned.bin"
}

# Without --ca-bundle the CLI refuses the unknown certificate; plain HTTP
# on the TLS port gets a 400, and the gateway goes on serving.
step_tls_refusals() {
	local code
	if timeout "$STEP_TIMEOUT" "$AWS" --endpoint-url "$TLS_EP" s3 ls "s3://$BUCKET/" >"$WORK/untrusted.log" 2>&1; then
		echo "the CLI accepted the self-signed certificate without --ca-bundle"
		return 1
	fi
	grep -Eiq 'certificate|SSL' "$WORK/untrusted.log" &&
		code=$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$TLS_PORT/$BUCKET/small.bin") &&
		echo "plain HTTP on the TLS port: $code" &&
		[[ $code == 400 ]] &&
		aws_tls s3api head-object --bucket "$BUCKET" --key small.bin >/dev/null
}

# sse_etag_parts BUCKET KEY [HEAD-ARGS...] prints the number of parts an
# object's ETag names ("…-N"), 1 for a single-part ETag.
sse_etag_parts() {
	local b=$1 k=$2 etag
	shift 2
	etag=$(aws_tls s3api head-object --bucket "$b" --key "$k" "$@" --query ETag --output text) || return 1
	etag=${etag//\"/}
	if [[ $etag == *-* ]]; then echo "${etag##*-}"; else echo 1; fi
}

# Server-side encryption over HTTPS (SSE-C needs it): SSE-C, SSE-S3 and
# SSE-KMS with a key made by objectgateway kms create, up and down; a
# bucket default encryption; the files on disk are not the plaintext. The
# 20 MiB mid.bin is above the CLI's 8 MiB threshold: its SSE-C, SSE-KMS
# and bucket-default copies go up as multipart uploads (3 parts, the ETag
# says so) and come down as ranged GETs.
step_tls_sse() {
	local b=e2e-sse
	head -c 32 /dev/urandom >"$WORK/sse-c.key" &&
		"$BIN" kms create e2e-key --root "$TLS_ROOT" &&
		aws_tls s3 mb "s3://$b" &&
		aws_tls s3 cp "$DATA/big.bin" "s3://$b/c.bin" --sse-c AES256 --sse-c-key "fileb://$WORK/sse-c.key" &&
		aws_tls s3 cp "s3://$b/c.bin" "$WORK/tls-down/c.bin" --sse-c AES256 --sse-c-key "fileb://$WORK/sse-c.key" &&
		cmp "$DATA/big.bin" "$WORK/tls-down/c.bin" &&
		! cmp -s "$DATA/big.bin" "$TLS_ROOT/$b/c.bin" &&
		aws_tls s3 cp --only-show-errors "$DATA/mid.bin" "s3://$b/c-mp.bin" --sse-c AES256 --sse-c-key "fileb://$WORK/sse-c.key" &&
		[[ $(sse_etag_parts "$b" c-mp.bin --sse-customer-algorithm AES256 --sse-customer-key "fileb://$WORK/sse-c.key") == 3 ]] &&
		aws_tls s3 cp --only-show-errors "s3://$b/c-mp.bin" "$WORK/tls-down/c-mp.bin" --sse-c AES256 --sse-c-key "fileb://$WORK/sse-c.key" &&
		cmp "$DATA/mid.bin" "$WORK/tls-down/c-mp.bin" &&
		! cmp -s -n 1048576 "$DATA/mid.bin" "$TLS_ROOT/$b/c-mp.bin" &&
		! aws_tls s3 cp --only-show-errors "s3://$b/c-mp.bin" "$WORK/tls-down/c-mp-nokey.bin" 2>/dev/null &&
		aws_tls s3 cp --only-show-errors "$DATA/mid.bin" "s3://$b/kms-mp.bin" --sse aws:kms --sse-kms-key-id e2e-key &&
		[[ $(sse_etag_parts "$b" kms-mp.bin) == 3 ]] &&
		aws_tls s3api head-object --bucket "$b" --key kms-mp.bin | grep -q '"SSEKMSKeyId": "e2e-key"' &&
		aws_tls s3 cp --only-show-errors "s3://$b/kms-mp.bin" "$WORK/tls-down/kms-mp.bin" &&
		cmp "$DATA/mid.bin" "$WORK/tls-down/kms-mp.bin" &&
		! cmp -s -n 1048576 "$DATA/mid.bin" "$TLS_ROOT/$b/kms-mp.bin" &&
		aws_tls s3 cp "$DATA/small.bin" "s3://$b/s3.bin" --sse AES256 &&
		aws_tls s3 cp "$DATA/small.bin" "s3://$b/kms.bin" --sse aws:kms --sse-kms-key-id e2e-key &&
		aws_tls s3api head-object --bucket "$b" --key kms.bin | grep -q '"SSEKMSKeyId": "e2e-key"' &&
		aws_tls s3 cp "s3://$b/kms.bin" "$WORK/tls-down/kms.bin" &&
		cmp "$DATA/small.bin" "$WORK/tls-down/kms.bin" &&
		aws_tls s3api put-bucket-encryption --bucket "$b" \
			--server-side-encryption-configuration '{"Rules":[{"ApplyServerSideEncryptionByDefault":{"SSEAlgorithm":"AES256"}}]}' &&
		aws_tls s3 cp "$DATA/small.bin" "s3://$b/default.bin" &&
		aws_tls s3api head-object --bucket "$b" --key default.bin | grep -q '"ServerSideEncryption": "AES256"' &&
		! cmp -s "$DATA/small.bin" "$TLS_ROOT/$b/default.bin" &&
		aws_tls s3 cp --only-show-errors "$DATA/mid.bin" "s3://$b/default-mp.bin" &&
		[[ $(sse_etag_parts "$b" default-mp.bin) == 3 ]] &&
		aws_tls s3api head-object --bucket "$b" --key default-mp.bin | grep -q '"ServerSideEncryption": "AES256"' &&
		aws_tls s3 cp --only-show-errors "s3://$b/default-mp.bin" "$WORK/tls-down/default-mp.bin" &&
		cmp "$DATA/mid.bin" "$WORK/tls-down/default-mp.bin" &&
		! cmp -s -n 1048576 "$DATA/mid.bin" "$TLS_ROOT/$b/default-mp.bin" &&
		aws_tls s3api delete-bucket-encryption --bucket "$b" &&
		AWS_CA_BUNDLE=$TLS_CA E2E_ENDPOINT=$TLS_EP E2E_SSE_ONLY=1 timeout 300 "$PY" "$REPO/.ci/e2e_boto3.py" &&
		aws_tls s3 rm --recursive --only-show-errors "s3://$b" &&
		aws_tls s3 rb "s3://$b"
}

step_tls_rm_rb() {
	aws_tls s3 rm --recursive --only-show-errors "s3://$BUCKET" &&
		aws_tls s3 rb "s3://$BUCKET"
}

check "https: mb, cp up and down 1 KiB and 20 MiB (multipart), cmp" step_tls_cp
check "https: ls, sync up, sync down and diff -r, sync again transfers nothing" step_tls_ls_sync
check "https: presign + curl --cacert and cmp" step_tls_presign
check "https: refused without --ca-bundle, plain HTTP answered 400" step_tls_refusals
check "https: SSE-C, SSE-S3, SSE-KMS and bucket default encryption, single-part and multipart (aws CLI and boto3)" step_tls_sse
check "https: rm --recursive and rb" step_tls_rm_rb

# --- Versioning and Object Lock, through the CLI's s3api, boto3's own
# checks (in e2e_boto3.py) and rclone's --s3-versions. The checks of this
# block share what they learn (version ids) through VL_* variables.
VL_BUCKET=e2e-versions
VL_LOCK=e2e-lock
VL_KEY=doc.txt
VL_IDS=()   # the version ids of doc.txt's three PUTs, oldest first
VL_MARKER=""
mkdir -p "$WORK/vl"
for n in 1 2 3; do
	printf 'version %d of doc.txt\n' "$n" >"$WORK/vl/v$n.txt"
done

# vl_refused CODE CMD... runs CMD, which must fail with an error naming CODE.
vl_refused() {
	local code=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "succeeded, but $code was expected: $out"
		return 1
	fi
	echo "$out"
	grep -q "$code" <<<"$out"
}

# vl_versions BUCKET [ARGS...] prints list-object-versions' versions and
# markers as "V|M<TAB>key<TAB>id<TAB>IsLatest" lines, newest first per key.
vl_versions() {
	local bucket=$1
	shift
	aws_ s3api list-object-versions --bucket "$bucket" "$@" --output json |
		"$PY" -c '
import json, sys
# The CLI prints nothing at all for a listing with no entries.
doc = json.loads(sys.stdin.read() or "{}")
for kind, name in (("V", "Versions"), ("M", "DeleteMarkers")):
    for v in doc.get(name) or []:
        print("%s\t%s\t%s\t%s" % (kind, v["Key"], v["VersionId"], v["IsLatest"]))
'
}

step_vl_enable() {
	aws_ s3api create-bucket --bucket "$VL_BUCKET" >/dev/null &&
		[[ $(aws_ s3api get-bucket-versioning --bucket "$VL_BUCKET" --query 'Status || `none`' --output text) == none ]] &&
		aws_ s3api put-bucket-versioning --bucket "$VL_BUCKET" --versioning-configuration Status=Enabled &&
		[[ $(aws_ s3api get-bucket-versioning --bucket "$VL_BUCKET" --query Status --output text) == Enabled ]]
}

step_vl_put3() {
	local n id
	VL_IDS=()
	for n in 1 2 3; do
		id=$(aws_ s3api put-object --bucket "$VL_BUCKET" --key "$VL_KEY" --body "$WORK/vl/v$n.txt" \
			--query VersionId --output text) || return 1
		echo "PUT $n: VersionId $id"
		[[ -n $id && $id != null && $id != None ]] || return 1
		VL_IDS+=("$id")
	done
	[[ $(printf '%s\n' "${VL_IDS[@]}" | sort -u | wc -l) == 3 ]]
}

# The newest version first, and only it IsLatest; the CLI's own paging
# (--page-size sends max-keys) and --max-items with --starting-token give
# the same three.
step_vl_list() {
	local out want page token
	want=$(printf 'V\t%s\t%s\tTrue\nV\t%s\t%s\tFalse\nV\t%s\t%s\tFalse' \
		"$VL_KEY" "${VL_IDS[2]}" "$VL_KEY" "${VL_IDS[1]}" "$VL_KEY" "${VL_IDS[0]}")
	out=$(vl_versions "$VL_BUCKET") && echo "$out" && [[ $out == "$want" ]] &&
		out=$(vl_versions "$VL_BUCKET" --page-size 1) && [[ $out == "$want" ]] &&
		page=$(aws_ s3api list-object-versions --bucket "$VL_BUCKET" --max-items 2 --output json) &&
		token=$("$PY" -c 'import json, sys; d = json.load(sys.stdin); print(len(d["Versions"]), d["NextToken"])' <<<"$page") &&
		echo "first page: $token" &&
		[[ ${token%% *} == 2 ]] &&
		out=$(vl_versions "$VL_BUCKET" --starting-token "${token#* }") && echo "$out" &&
		[[ $out == "$(printf 'V\t%s\t%s\tFalse' "$VL_KEY" "${VL_IDS[0]}")" ]]
}

step_vl_get_old() {
	local id
	id=$(aws_ s3api get-object --bucket "$VL_BUCKET" --key "$VL_KEY" --version-id "${VL_IDS[0]}" \
		"$WORK/vl/got1.txt" --query VersionId --output text) &&
		[[ $id == "${VL_IDS[0]}" ]] &&
		cmp "$WORK/vl/v1.txt" "$WORK/vl/got1.txt" &&
		aws_ s3api get-object --bucket "$VL_BUCKET" --key "$VL_KEY" "$WORK/vl/got3.txt" >/dev/null &&
		cmp "$WORK/vl/v3.txt" "$WORK/vl/got3.txt"
}

step_vl_marker() {
	local out
	out=$(aws_ s3api delete-object --bucket "$VL_BUCKET" --key "$VL_KEY" --query '[DeleteMarker, VersionId]' --output text) &&
		echo "$out" &&
		[[ $(cut -f1 <<<"$out") == True ]] &&
		VL_MARKER=$(cut -f2 <<<"$out") &&
		[[ -n $VL_MARKER && $VL_MARKER != null ]] &&
		vl_refused '(404)' aws_ s3api head-object --bucket "$VL_BUCKET" --key "$VL_KEY" &&
		out=$(vl_versions "$VL_BUCKET") && echo "$out" &&
		grep -qxF "$(printf 'M\t%s\t%s\tTrue' "$VL_KEY" "$VL_MARKER")" <<<"$out" &&
		[[ $(grep -c '^V.*False$' <<<"$out") == 3 ]] &&
		[[ -z $(aws_ s3api list-objects-v2 --bucket "$VL_BUCKET" --query 'Contents[].Key' --output text | grep -v None) ]]
}

step_vl_undelete() {
	aws_ s3api delete-object --bucket "$VL_BUCKET" --key "$VL_KEY" --version-id "$VL_MARKER" &&
		[[ $(aws_ s3api head-object --bucket "$VL_BUCKET" --key "$VL_KEY" --query VersionId --output text) == "${VL_IDS[2]}" ]] &&
		[[ -z $(vl_versions "$VL_BUCKET" | grep '^M') ]]
}

step_vl_delete_version() {
	local out
	out=$(aws_ s3api delete-object --bucket "$VL_BUCKET" --key "$VL_KEY" --version-id "${VL_IDS[1]}" \
		--query VersionId --output text) && [[ $out == "${VL_IDS[1]}" ]] &&
		vl_refused NoSuchVersion aws_ s3api get-object --bucket "$VL_BUCKET" --key "$VL_KEY" \
			--version-id "${VL_IDS[1]}" "$WORK/vl/gone.txt" &&
		out=$(vl_versions "$VL_BUCKET") && echo "$out" &&
		[[ $out == "$(printf 'V\t%s\t%s\tTrue\nV\t%s\t%s\tFalse' "$VL_KEY" "${VL_IDS[2]}" "$VL_KEY" "${VL_IDS[0]}")" ]]
}

# Suspended: a PUT writes the null version, which the next PUT replaces,
# and is answered without a version id, as S3 answers it; HEAD names it
# null; the versions made before stay.
step_vl_suspend() {
	local out
	aws_ s3api put-bucket-versioning --bucket "$VL_BUCKET" --versioning-configuration Status=Suspended &&
		[[ $(aws_ s3api get-bucket-versioning --bucket "$VL_BUCKET" --query Status --output text) == Suspended ]] &&
		[[ $(aws_ s3api put-object --bucket "$VL_BUCKET" --key "$VL_KEY" --body "$WORK/vl/v1.txt" --query VersionId --output text) == None ]] &&
		[[ $(aws_ s3api put-object --bucket "$VL_BUCKET" --key "$VL_KEY" --body "$WORK/vl/v2.txt" --query VersionId --output text) == None ]] &&
		[[ $(aws_ s3api head-object --bucket "$VL_BUCKET" --key "$VL_KEY" --query VersionId --output text) == null ]] &&
		out=$(vl_versions "$VL_BUCKET") && echo "$out" &&
		[[ $out == "$(printf 'V\t%s\tnull\tTrue\nV\t%s\t%s\tFalse\nV\t%s\t%s\tFalse' "$VL_KEY" "$VL_KEY" "${VL_IDS[2]}" "$VL_KEY" "${VL_IDS[0]}")" ]] &&
		aws_ s3api get-object --bucket "$VL_BUCKET" --key "$VL_KEY" --version-id null "$WORK/vl/null.txt" >/dev/null &&
		cmp "$WORK/vl/v2.txt" "$WORK/vl/null.txt"
}

# Lock headers on a bucket without Object Lock are refused.
step_vl_lock_refused() {
	vl_refused InvalidRequest aws_ s3api put-object --bucket "$VL_BUCKET" --key locked.txt \
		--body "$WORK/vl/v1.txt" --checksum-algorithm CRC32 --object-lock-legal-hold-status ON &&
		vl_refused InvalidRequest aws_ s3api put-object-legal-hold --bucket "$VL_BUCKET" --key "$VL_KEY" \
			--legal-hold Status=ON
}

# create-bucket --object-lock-enabled-for-bucket: versioning on, and it
# cannot be suspended; a default GOVERNANCE retention of one day then
# applies to every PUT that names none.
step_vl_lock_bucket() {
	local out
	aws_ s3api create-bucket --bucket "$VL_LOCK" --object-lock-enabled-for-bucket >/dev/null &&
		[[ $(aws_ s3api get-bucket-versioning --bucket "$VL_LOCK" --query Status --output text) == Enabled ]] &&
		[[ $(aws_ s3api get-object-lock-configuration --bucket "$VL_LOCK" --query ObjectLockConfiguration.ObjectLockEnabled --output text) == Enabled ]] &&
		vl_refused InvalidBucketState aws_ s3api put-bucket-versioning --bucket "$VL_LOCK" \
			--versioning-configuration Status=Suspended &&
		aws_ s3api put-object-lock-configuration --bucket "$VL_LOCK" --object-lock-configuration \
			'{"ObjectLockEnabled":"Enabled","Rule":{"DefaultRetention":{"Mode":"GOVERNANCE","Days":1}}}' &&
		out=$(aws_ s3api get-object-lock-configuration --bucket "$VL_LOCK" \
			--query 'ObjectLockConfiguration.Rule.DefaultRetention.[Mode, Days]' --output text) &&
		echo "default retention: $out" &&
		[[ $out == "$(printf 'GOVERNANCE\t1')" ]]
}

VL_GOV=""
step_vl_default_retention() {
	local out until now
	VL_GOV=$(aws_ s3api put-object --bucket "$VL_LOCK" --key gov.txt --body "$WORK/vl/v1.txt" --query VersionId --output text) &&
		echo "gov.txt $VL_GOV" &&
		out=$(aws_ s3api head-object --bucket "$VL_LOCK" --key gov.txt \
			--query '[ObjectLockMode, ObjectLockRetainUntilDate, VersionId]' --output text) &&
		echo "$out" &&
		[[ $(cut -f1 <<<"$out") == GOVERNANCE && $(cut -f3 <<<"$out") == "$VL_GOV" ]] &&
		until=$(date -u -d "$(cut -f2 <<<"$out")" +%s) && now=$(date -u +%s) &&
		((until > now + 86400 - 600 && until < now + 86400 + 600))
}

step_vl_governance() {
	vl_refused AccessDenied aws_ s3api delete-object --bucket "$VL_LOCK" --key gov.txt --version-id "$VL_GOV" &&
		aws_ s3api head-object --bucket "$VL_LOCK" --key gov.txt --version-id "$VL_GOV" >/dev/null &&
		aws_ s3api delete-object --bucket "$VL_LOCK" --key gov.txt --version-id "$VL_GOV" --bypass-governance-retention &&
		vl_refused '(404)' aws_ s3api head-object --bucket "$VL_LOCK" --key gov.txt --version-id "$VL_GOV"
}

# Leaving the default GOVERNANCE retention for COMPLIANCE takes the
# bypass; COMPLIANCE then cannot be shortened or deleted, bypass or not.
step_vl_compliance() {
	local id later sooner out
	later=$(date -u -d '+3 days' +%Y-%m-%dT%H:%M:%SZ) && sooner=$(date -u -d '+2 days' +%Y-%m-%dT%H:%M:%SZ) &&
		id=$(aws_ s3api put-object --bucket "$VL_LOCK" --key compliance.txt --body "$WORK/vl/v2.txt" --query VersionId --output text) &&
		aws_ s3api put-object-retention --bucket "$VL_LOCK" --key compliance.txt --version-id "$id" \
			--bypass-governance-retention --retention "{\"Mode\":\"COMPLIANCE\",\"RetainUntilDate\":\"$later\"}" &&
		out=$(aws_ s3api get-object-retention --bucket "$VL_LOCK" --key compliance.txt --version-id "$id" \
			--query 'Retention.[Mode, RetainUntilDate]' --output text) &&
		echo "$out" &&
		[[ $(cut -f1 <<<"$out") == COMPLIANCE ]] &&
		[[ $(date -u -d "$(cut -f2 <<<"$out")" +%s) == $(date -u -d "$later" +%s) ]] &&
		vl_refused AccessDenied aws_ s3api put-object-retention --bucket "$VL_LOCK" --key compliance.txt --version-id "$id" \
			--retention "{\"Mode\":\"COMPLIANCE\",\"RetainUntilDate\":\"$sooner\"}" &&
		vl_refused AccessDenied aws_ s3api put-object-retention --bucket "$VL_LOCK" --key compliance.txt --version-id "$id" \
			--bypass-governance-retention --retention "{\"Mode\":\"GOVERNANCE\",\"RetainUntilDate\":\"$later\"}" &&
		vl_refused AccessDenied aws_ s3api delete-object --bucket "$VL_LOCK" --key compliance.txt --version-id "$id" \
			--bypass-governance-retention
}

# A legal hold blocks a delete even with the governance bypass; once off,
# an object with no retention can be deleted, while one under retention
# still needs the bypass.
step_vl_legal_hold() {
	local id out
	aws_ s3api put-object-lock-configuration --bucket "$VL_LOCK" --object-lock-configuration '{"ObjectLockEnabled":"Enabled"}' &&
		id=$(aws_ s3api put-object --bucket "$VL_LOCK" --key hold.txt --body "$WORK/vl/v3.txt" \
			--checksum-algorithm CRC32 --object-lock-legal-hold-status ON --query VersionId --output text) &&
		out=$(aws_ s3api head-object --bucket "$VL_LOCK" --key hold.txt --query '[ObjectLockLegalHoldStatus, ObjectLockMode]' --output text) &&
		echo "$out" &&
		[[ $out == "$(printf 'ON\tNone')" ]] &&
		vl_refused AccessDenied aws_ s3api delete-object --bucket "$VL_LOCK" --key hold.txt --version-id "$id" \
			--bypass-governance-retention &&
		aws_ s3api put-object-legal-hold --bucket "$VL_LOCK" --key hold.txt --version-id "$id" --legal-hold Status=OFF &&
		[[ $(aws_ s3api get-object-legal-hold --bucket "$VL_LOCK" --key hold.txt --version-id "$id" --query LegalHold.Status --output text) == OFF ]] &&
		aws_ s3api delete-object --bucket "$VL_LOCK" --key hold.txt --version-id "$id" &&
		id=$(aws_ s3api put-object --bucket "$VL_LOCK" --key held-gov.txt --body "$WORK/vl/v3.txt" \
			--checksum-algorithm CRC32 --object-lock-mode GOVERNANCE \
			--object-lock-retain-until-date "$(date -u -d '+1 day' +%Y-%m-%dT%H:%M:%SZ)" --query VersionId --output text) &&
		aws_ s3api put-object-legal-hold --bucket "$VL_LOCK" --key held-gov.txt --version-id "$id" --legal-hold Status=ON &&
		vl_refused AccessDenied aws_ s3api delete-object --bucket "$VL_LOCK" --key held-gov.txt --version-id "$id" \
			--bypass-governance-retention &&
		aws_ s3api put-object-legal-hold --bucket "$VL_LOCK" --key held-gov.txt --version-id "$id" --legal-hold Status=OFF &&
		vl_refused AccessDenied aws_ s3api delete-object --bucket "$VL_LOCK" --key held-gov.txt --version-id "$id" &&
		aws_ s3api delete-object --bucket "$VL_LOCK" --key held-gov.txt --version-id "$id" --bypass-governance-retention
}

# rclone (Debian's) reads the old versions with --s3-versions, which names
# each one key-vYYYY-MM-DD-HHMMSS-mmm.ext by its LastModified. The remote
# is configured by environment variables alone; rclone takes
# AWS_CA_BUNDLE, which a CI machine may set, as a reason to refuse an
# http:// endpoint, so it is not passed on.
RCLONE=/usr/bin/rclone
rclone_() {
	env -u AWS_CA_BUNDLE RCLONE_CONFIG=$WORK/rclone.conf RCLONE_CONFIG_GW_TYPE=s3 RCLONE_CONFIG_GW_PROVIDER=Other \
		RCLONE_CONFIG_GW_ENDPOINT=$EP RCLONE_CONFIG_GW_REGION=us-east-1 \
		RCLONE_CONFIG_GW_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID RCLONE_CONFIG_GW_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY \
		timeout "$STEP_TIMEOUT" "$RCLONE" "$@"
}

VL_RCLONE=e2e-rclone
# rclone makes the bucket and turns versioning on itself (its backend
# command "versioning"), then copies two versions of one file into it.
step_vl_rclone_copy() {
	mkdir -p "$WORK/vl/rc1" "$WORK/vl/rc2" && : >"$WORK/rclone.conf" &&
		printf 'first\n' >"$WORK/vl/rc1/note.txt" &&
		printf 'the second, longer version\n' >"$WORK/vl/rc2/note.txt" &&
		rclone_ mkdir "gw:$VL_RCLONE" &&
		[[ $(rclone_ backend versioning "gw:$VL_RCLONE") == Unversioned ]] &&
		rclone_ backend versioning "gw:$VL_RCLONE" Enabled &&
		[[ $(aws_ s3api get-bucket-versioning --bucket "$VL_RCLONE" --query Status --output text) == Enabled ]] &&
		rclone_ copy "$WORK/vl/rc1" "gw:$VL_RCLONE" &&
		rclone_ copy "$WORK/vl/rc2" "gw:$VL_RCLONE" &&
		[[ $(rclone_ cat "gw:$VL_RCLONE/note.txt") == "the second, longer version" ]] &&
		[[ $(vl_versions "$VL_RCLONE" | grep -c '^V') == 2 ]]
}

step_vl_rclone_versions() {
	local out old
	out=$(rclone_ lsl --s3-versions "gw:$VL_RCLONE") && echo "$out" &&
		[[ $(wc -l <<<"$out") == 2 ]] &&
		grep -Eq '^ +27 .* note\.txt$' <<<"$out" &&
		old=$(grep -E '^ +6 .* note-v[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}-[0-9]{3}\.txt$' <<<"$out" | awk '{print $NF}') &&
		[[ -n $old ]] &&
		[[ $(rclone_ cat --s3-versions "gw:$VL_RCLONE/$old") == first ]] &&
		rclone_ copy --s3-versions "gw:$VL_RCLONE" "$WORK/vl/rc-all" &&
		cmp "$WORK/vl/rc1/note.txt" "$WORK/vl/rc-all/$old" &&
		cmp "$WORK/vl/rc2/note.txt" "$WORK/vl/rc-all/note.txt"
}

# rclone's delete in a versioned bucket writes a delete marker: the key is
# gone from the listing and both versions are still there to read.
step_vl_rclone_delete() {
	local out
	rclone_ deletefile "gw:$VL_RCLONE/note.txt" &&
		[[ -z $(rclone_ lsf "gw:$VL_RCLONE") ]] &&
		out=$(rclone_ lsl --s3-versions "gw:$VL_RCLONE") && echo "$out" &&
		[[ $(grep -Ec ' note-v[0-9-]+\.txt$' <<<"$out") == 2 ]] &&
		[[ $(vl_versions "$VL_RCLONE" | grep -c '^M') == 1 ]]
}

# rclone's backend command cleanup-hidden removes every noncurrent
# version and delete marker, after which rmdir removes the bucket.
step_vl_rclone_cleanup() {
	rclone_ backend cleanup-hidden "gw:$VL_RCLONE" &&
		[[ -z $(vl_versions "$VL_RCLONE") ]] &&
		rclone_ rmdir "gw:$VL_RCLONE" &&
		vl_refused '(404)' aws_ s3api head-bucket --bucket "$VL_RCLONE"
}

# Emptying a versioned bucket takes deleting every version and marker:
# until then delete-bucket answers BucketNotEmpty.
step_vl_cleanup() {
	local kind key id
	vl_refused BucketNotEmpty aws_ s3api delete-bucket --bucket "$VL_BUCKET" &&
		vl_versions "$VL_BUCKET" >"$WORK/vl/left.txt" || return 1
	while IFS=$'\t' read -r kind key id _; do
		aws_ s3api delete-object --bucket "$VL_BUCKET" --key "$key" --version-id "$id" >/dev/null || return 1
	done <"$WORK/vl/left.txt"
	aws_ s3api delete-bucket --bucket "$VL_BUCKET"
}

check "versioning: put-bucket-versioning Enabled, get-bucket-versioning" step_vl_enable
check "versioning: put-object x3 gives three distinct VersionIds" step_vl_put3
check "versioning: list-object-versions, IsLatest, --page-size and --max-items paging" step_vl_list
check "versioning: get-object --version-id of the oldest" step_vl_get_old
check "versioning: delete-object writes a DeleteMarker, head-object 404, listed" step_vl_marker
check "versioning: delete-object --version-id of the marker brings the object back" step_vl_undelete
check "versioning: delete-object --version-id removes that version" step_vl_delete_version
check "versioning: Suspended, put-object writes the null version" step_vl_suspend
check "object lock: lock headers on a bucket without Object Lock are InvalidRequest" step_vl_lock_refused
check "object lock: create-bucket --object-lock-enabled-for-bucket, default GOVERNANCE 1 day" step_vl_lock_bucket
check "object lock: put-object takes the default retention, head-object shows it" step_vl_default_retention
check "object lock: GOVERNANCE delete AccessDenied, then --bypass-governance-retention" step_vl_governance
check "object lock: COMPLIANCE retention cannot be shortened or deleted" step_vl_compliance
check "object lock: legal hold ON blocks delete, OFF allows it" step_vl_legal_hold
if [[ -x "$RCLONE" ]]; then
	check "rclone: mkdir, backend versioning Enabled, copy two versions" step_vl_rclone_copy
	check "rclone: lsl --s3-versions, cat and copy of an old version" step_vl_rclone_versions
	check "rclone: deletefile leaves both versions to --s3-versions" step_vl_rclone_delete
	check "rclone: backend cleanup-hidden removes the old versions, rmdir the bucket" step_vl_rclone_cleanup
elif [[ -n "${CI:-}" ]]; then
	check "rclone is installed ($RCLONE)" false
else
	echo "skip rclone checks: $RCLONE not found (apt-get install rclone)"
fi
check "versioning: delete-bucket BucketNotEmpty until every version is deleted" step_vl_cleanup

summary
