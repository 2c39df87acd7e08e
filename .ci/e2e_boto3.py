#!/usr/bin/env python3
"""End-to-end checks of objectgateway with boto3 (Debian's python3-boto3).

The client keeps boto3's default settings except for the endpoint and
path-style addressing. Configuration comes from the environment:

    E2E_ENDPOINT            e.g. http://127.0.0.1:9000 (required)
    AWS_ACCESS_KEY_ID       the gateway's access key (required)
    AWS_SECRET_ACCESS_KEY   the gateway's secret key (required)
    AWS_DEFAULT_REGION      defaults to us-east-1
    E2E_SSE_ONLY            when set, run only the server-side encryption
                            checks (SSE-C needs HTTPS: E2E_ENDPOINT is then
                            the TLS gateway, AWS_CA_BUNDLE its certificate)

Prints one line per check and a final "e2e-boto3: N passed, M failed" line;
exits 1 if any check failed. Normally run by .ci/e2e-awscli.sh.
"""

import datetime
import hashlib
import os
import random
import sys
import traceback

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

BUCKET = "e2e-boto3"


def data(seed, size):
    """Deterministic pseudo-random bytes."""
    return random.Random(seed).randbytes(size)


class Runner:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, fn):
        try:
            fn()
        except Exception:  # a failed check must not stop the others
            self.failed += 1
            print(f"FAIL {name}")
            for line in traceback.format_exc().rstrip().splitlines()[-8:]:
                print(f"     {line}")
        else:
            self.passed += 1
            print(f"ok   {name}")
        sys.stdout.flush()


def expect(cond, msg):
    if not cond:
        raise AssertionError(msg)


def error_code(exc):
    return exc.response.get("Error", {}).get("Code"), exc.response.get(
        "ResponseMetadata", {}
    ).get("HTTPStatusCode")


VERSIONED = "e2e-boto3-versions"
LOCKED = "e2e-boto3-lock"


def all_versions(s3, bucket):
    """Every version and delete marker of bucket, through the paginator."""
    versions, markers = [], []
    pages = s3.get_paginator("list_object_versions").paginate(
        Bucket=bucket, PaginationConfig={"PageSize": 1}
    )
    for page in pages:
        versions += page.get("Versions", [])
        markers += page.get("DeleteMarkers", [])
    return versions, markers


def expect_refused(fn, want_code, want_status):
    """Calls fn, which must raise a ClientError with this code and status."""
    try:
        resp = fn()
    except ClientError as exc:
        code, status = error_code(exc)
        expect((code, status) == (want_code, want_status), f"error {code!r} {status}, want {want_code!r} {want_status}")
        return exc.response
    raise AssertionError(f"succeeded, {want_code} expected: {resp.get('ResponseMetadata', {}).get('HTTPStatusCode')}")


def versioning_checks(s3, r):
    """Versioning and Object Lock as boto3 users drive them."""
    key = "doc.txt"
    bodies = [f"version {n} of {key}\n".encode() for n in (1, 2, 3)]
    ids = []
    marker = {}

    def enable():
        s3.create_bucket(Bucket=VERSIONED)
        expect("Status" not in s3.get_bucket_versioning(Bucket=VERSIONED), "a new bucket has a versioning Status")
        s3.put_bucket_versioning(Bucket=VERSIONED, VersioningConfiguration={"Status": "Enabled"})
        status = s3.get_bucket_versioning(Bucket=VERSIONED).get("Status")
        expect(status == "Enabled", f"Status {status!r}")

    def put3():
        for body in bodies:
            ids.append(s3.put_object(Bucket=VERSIONED, Key=key, Body=body)["VersionId"])
        expect(len(set(ids)) == 3 and "null" not in ids, f"VersionIds {ids}")

    def list_paginated():
        versions, markers = all_versions(s3, VERSIONED)
        got = [(v["VersionId"], v["IsLatest"]) for v in versions]
        want = [(ids[2], True), (ids[1], False), (ids[0], False)]
        expect(got == want, f"versions {got} != {want}")
        expect(not markers, f"delete markers {markers}")

    def get_by_version():
        resp = s3.get_object(Bucket=VERSIONED, Key=key, VersionId=ids[0])
        expect(resp["Body"].read() == bodies[0], "the oldest version's bytes differ")
        expect(resp["VersionId"] == ids[0], f"VersionId {resp['VersionId']}")
        expect(s3.head_object(Bucket=VERSIONED, Key=key)["VersionId"] == ids[2], "the current version is not the newest")

    def delete_marker():
        resp = s3.delete_object(Bucket=VERSIONED, Key=key)
        expect(resp.get("DeleteMarker") is True, f"DeleteMarker {resp.get('DeleteMarker')!r}")
        marker["id"] = resp["VersionId"]
        got = expect_refused(lambda: s3.get_object(Bucket=VERSIONED, Key=key), "NoSuchKey", 404)
        headers = got["ResponseMetadata"]["HTTPHeaders"]
        expect(headers.get("x-amz-delete-marker") == "true", f"headers {headers}")
        expect(headers.get("x-amz-version-id") == marker["id"], f"headers {headers}")
        expect_refused(lambda: s3.head_object(Bucket=VERSIONED, Key=key), "404", 404)
        got = expect_refused(
            lambda: s3.get_object(Bucket=VERSIONED, Key=key, VersionId=marker["id"]), "MethodNotAllowed", 405
        )
        expect(got["ResponseMetadata"]["HTTPHeaders"].get("x-amz-delete-marker") == "true", "405 without x-amz-delete-marker")
        versions, markers = all_versions(s3, VERSIONED)
        expect([(m["VersionId"], m["IsLatest"]) for m in markers] == [(marker["id"], True)], f"markers {markers}")
        expect(not any(v["IsLatest"] for v in versions), f"a version is still latest: {versions}")

    def delete_objects_by_version():
        # One request removes the marker (the object comes back) and the
        # middle version.
        resp = s3.delete_objects(
            Bucket=VERSIONED,
            Delete={"Objects": [{"Key": key, "VersionId": marker["id"]}, {"Key": key, "VersionId": ids[1]}]},
        )
        expect(not resp.get("Errors"), f"Errors {resp.get('Errors')}")
        deleted = {d["VersionId"]: d for d in resp.get("Deleted", [])}
        expect(set(deleted) == {marker["id"], ids[1]}, f"Deleted {resp.get('Deleted')}")
        expect(deleted[marker["id"]].get("DeleteMarker") is True, f"marker entry {deleted[marker['id']]}")
        expect(deleted[marker["id"]].get("DeleteMarkerVersionId") == marker["id"], f"marker entry {deleted[marker['id']]}")
        expect(s3.get_object(Bucket=VERSIONED, Key=key)["Body"].read() == bodies[2], "the newest version is not back")
        versions, markers = all_versions(s3, VERSIONED)
        expect([v["VersionId"] for v in versions] == [ids[2], ids[0]] and not markers, f"versions {versions} markers {markers}")

    def delete_objects_marker():
        resp = s3.delete_objects(Bucket=VERSIONED, Delete={"Objects": [{"Key": key}]})
        (entry,) = resp["Deleted"]
        expect(entry.get("DeleteMarker") is True and entry.get("DeleteMarkerVersionId"), f"Deleted {entry}")
        _, markers = all_versions(s3, VERSIONED)
        expect([m["VersionId"] for m in markers] == [entry["DeleteMarkerVersionId"]], f"markers {markers}")

    def suspended():
        s3.put_bucket_versioning(Bucket=VERSIONED, VersioningConfiguration={"Status": "Suspended"})
        resp = s3.put_object(Bucket=VERSIONED, Key=key, Body=b"null version")
        # S3 answers a write while suspended without a version id.
        expect("VersionId" not in resp, f"VersionId {resp.get('VersionId')!r}")
        resp = s3.get_object(Bucket=VERSIONED, Key=key, VersionId="null")
        expect(resp["Body"].read() == b"null version" and resp["VersionId"] == "null", "the null version differs")

    def lock_bucket():
        s3.create_bucket(Bucket=LOCKED, ObjectLockEnabledForBucket=True)
        conf = s3.get_object_lock_configuration(Bucket=LOCKED)["ObjectLockConfiguration"]
        expect(conf.get("ObjectLockEnabled") == "Enabled", f"configuration {conf}")
        expect(s3.get_bucket_versioning(Bucket=LOCKED).get("Status") == "Enabled", "versioning is not Enabled")

    def lock_with_content_md5():
        # S3 locks only bytes it can verify: botocore of Debian's age sends
        # Content-MD5 with every PutObject, which is enough.
        resp = s3.put_object(Bucket=LOCKED, Key="md5.txt", Body=b"md5", ObjectLockLegalHoldStatus="ON")
        vid = resp["VersionId"]
        head = s3.head_object(Bucket=LOCKED, Key="md5.txt", VersionId=vid)
        expect(head.get("ObjectLockLegalHoldStatus") == "ON", f"legal hold {head.get('ObjectLockLegalHoldStatus')!r}")
        s3.put_object_legal_hold(Bucket=LOCKED, Key="md5.txt", VersionId=vid, LegalHold={"Status": "OFF"})

    def governance():
        until = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + datetime.timedelta(days=1)
        vid = s3.put_object(
            Bucket=LOCKED,
            Key="gov.txt",
            Body=b"governed",
            ChecksumAlgorithm="CRC32",
            ObjectLockMode="GOVERNANCE",
            ObjectLockRetainUntilDate=until,
        )["VersionId"]
        head = s3.head_object(Bucket=LOCKED, Key="gov.txt")
        expect(head.get("ObjectLockMode") == "GOVERNANCE", f"ObjectLockMode {head.get('ObjectLockMode')!r}")
        expect(head.get("ObjectLockRetainUntilDate") == until, f"RetainUntilDate {head.get('ObjectLockRetainUntilDate')} != {until}")
        expect_refused(lambda: s3.delete_object(Bucket=LOCKED, Key="gov.txt", VersionId=vid), "AccessDenied", 403)
        resp = s3.delete_objects(Bucket=LOCKED, Delete={"Objects": [{"Key": "gov.txt", "VersionId": vid}]})
        errors = [(e["VersionId"], e["Code"]) for e in resp.get("Errors", [])]
        expect(errors == [(vid, "AccessDenied")] and not resp.get("Deleted"), f"delete_objects {resp}")
        resp = s3.delete_objects(
            Bucket=LOCKED,
            Delete={"Objects": [{"Key": "gov.txt", "VersionId": vid}]},
            BypassGovernanceRetention=True,
        )
        expect([d["VersionId"] for d in resp.get("Deleted", [])] == [vid], f"delete_objects with bypass {resp}")

    def legal_hold():
        vid = s3.put_object(
            Bucket=LOCKED, Key="held.txt", Body=b"held", ChecksumAlgorithm="CRC32", ObjectLockLegalHoldStatus="ON"
        )["VersionId"]
        hold = s3.get_object_legal_hold(Bucket=LOCKED, Key="held.txt", VersionId=vid)["LegalHold"]["Status"]
        expect(hold == "ON", f"legal hold {hold!r}")
        expect_refused(
            lambda: s3.delete_object(Bucket=LOCKED, Key="held.txt", VersionId=vid, BypassGovernanceRetention=True),
            "AccessDenied",
            403,
        )
        s3.put_object_legal_hold(Bucket=LOCKED, Key="held.txt", VersionId=vid, LegalHold={"Status": "OFF"})
        s3.delete_object(Bucket=LOCKED, Key="held.txt", VersionId=vid)
        expect_refused(lambda: s3.head_object(Bucket=LOCKED, Key="held.txt", VersionId=vid), "404", 404)

    def empty_and_delete():
        # What a script that empties a versioned bucket does: every version
        # and marker by id, the bypass for what GOVERNANCE still holds.
        for bucket in (VERSIONED, LOCKED):
            versions, markers = all_versions(s3, bucket)
            entries = [{"Key": v["Key"], "VersionId": v["VersionId"]} for v in versions + markers]
            if entries:
                resp = s3.delete_objects(Bucket=bucket, Delete={"Objects": entries}, BypassGovernanceRetention=True)
                expect(not resp.get("Errors"), f"{bucket}: Errors {resp.get('Errors')}")
            s3.delete_bucket(Bucket=bucket)

    r.check("versioning: put_bucket_versioning Enabled", enable)
    r.check("versioning: put_object x3, distinct VersionIds", put3)
    r.check("versioning: list_object_versions paginator, IsLatest", list_paginated)
    r.check("versioning: get_object(VersionId=) of the oldest", get_by_version)
    r.check("versioning: delete_object writes a delete marker, NoSuchKey and 405 by id", delete_marker)
    r.check("versioning: delete_objects by VersionId, the marker too", delete_objects_by_version)
    r.check("versioning: delete_objects without VersionId writes a marker", delete_objects_marker)
    r.check("versioning: Suspended, put_object writes the null version", suspended)
    r.check("object lock: create_bucket(ObjectLockEnabledForBucket=True)", lock_bucket)
    r.check("object lock: put_object with a legal hold and boto3's Content-MD5", lock_with_content_md5)
    r.check("object lock: GOVERNANCE put_object, delete refused, BypassGovernanceRetention", governance)
    r.check("object lock: legal hold ON refuses even the bypass, OFF allows the delete", legal_hold)
    r.check("versioning: empty both buckets by version and delete them", empty_and_delete)


def sigv2_checks(r, endpoint, key_id, secret):
    """Signature Version 2 (botocore's signature_version='s3'): put, get,
    list and a presigned GET fetched with urllib, in a bucket of its own."""
    import urllib.request

    bucket = "e2e-boto3-sigv2"
    body = data(21, 4096)
    v2 = boto3.session.Session().client(
        "s3",
        endpoint_url=endpoint,
        region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"),
        aws_access_key_id=key_id,
        aws_secret_access_key=secret,
        config=Config(signature_version="s3", s3={"addressing_style": "path"}),
    )

    def put():
        v2.create_bucket(Bucket=bucket)
        resp = v2.put_object(Bucket=bucket, Key="v2/hello world.bin", Body=body, Metadata={"signed": "v2"})
        want = '"%s"' % hashlib.md5(body).hexdigest()
        expect(resp["ETag"] == want, f"ETag {resp['ETag']} != {want}")

    def get():
        resp = v2.get_object(Bucket=bucket, Key="v2/hello world.bin")
        expect(resp["Body"].read() == body, "bytes differ")
        expect(resp["Metadata"].get("signed") == "v2", f"Metadata {resp['Metadata']}")

    def list_v2():
        keys = [o["Key"] for o in v2.list_objects_v2(Bucket=bucket, Prefix="v2/").get("Contents", [])]
        expect(keys == ["v2/hello world.bin"], f"listed {keys}")

    def presigned_get():
        url = v2.generate_presigned_url(
            "get_object", Params={"Bucket": bucket, "Key": "v2/hello world.bin"}, ExpiresIn=300
        )
        expect("AWSAccessKeyId=" in url and "Signature=" in url, f"not a V2 URL: {url}")
        with urllib.request.urlopen(url, timeout=60) as resp:
            expect(resp.status == 200, f"status {resp.status}")
            expect(resp.read() == body, "bytes differ")

    def bad_secret():
        bad = boto3.session.Session().client(
            "s3",
            endpoint_url=endpoint,
            region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"),
            aws_access_key_id=key_id,
            aws_secret_access_key=secret + "x",
            config=Config(signature_version="s3", s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
        )
        try:
            bad.head_bucket(Bucket=bucket)
        except ClientError as exc:
            _, status = error_code(exc)
            expect(status == 403, f"status {status}")
        else:
            raise AssertionError("a wrong secret was accepted")

    def cleanup():
        v2.delete_object(Bucket=bucket, Key="v2/hello world.bin")
        v2.delete_bucket(Bucket=bucket)

    r.check("sigv2 put_object", put)
    r.check("sigv2 get_object", get)
    r.check("sigv2 list_objects_v2", list_v2)
    r.check("sigv2 generate_presigned_url + urllib GET", presigned_get)
    r.check("sigv2 wrong secret is 403", bad_secret)
    r.check("sigv2 delete_object, delete_bucket", cleanup)


def sse_checks(r, s3):
    """SSE-C put/get/copy, SSE-C multipart and SSE-S3, against an HTTPS endpoint."""
    bucket = BUCKET + "-sse"
    body = data(21, 300 * 1024)
    key1, key2 = os.urandom(32), os.urandom(32)

    def create():
        s3.create_bucket(Bucket=bucket)

    def ssec_put_get():
        s3.put_object(Bucket=bucket, Key="c.bin", Body=body, SSECustomerAlgorithm="AES256", SSECustomerKey=key1)
        got = s3.get_object(Bucket=bucket, Key="c.bin", SSECustomerAlgorithm="AES256", SSECustomerKey=key1)
        expect(got["Body"].read() == body, "SSE-C get_object bytes differ")
        expect(got.get("SSECustomerAlgorithm") == "AES256", f"SSECustomerAlgorithm {got.get('SSECustomerAlgorithm')}")
        part = s3.get_object(Bucket=bucket, Key="c.bin", Range="bytes=70000-70009",
                             SSECustomerAlgorithm="AES256", SSECustomerKey=key1)
        expect(part["Body"].read() == body[70000:70010], "SSE-C range differs")

    def ssec_errors():
        for kwargs, want in (({}, (400, "InvalidRequest")),
                             ({"SSECustomerAlgorithm": "AES256", "SSECustomerKey": key2}, (403, "AccessDenied"))):
            try:
                s3.get_object(Bucket=bucket, Key="c.bin", **kwargs)
            except ClientError as exc:
                code, status = error_code(exc)
                expect((status, code) == want, f"got {status} {code}, want {want}")
            else:
                raise AssertionError(f"get_object {sorted(kwargs)} succeeded")

    def ssec_copy():
        s3.copy_object(Bucket=bucket, Key="c2.bin", CopySource={"Bucket": bucket, "Key": "c.bin"},
                       CopySourceSSECustomerAlgorithm="AES256", CopySourceSSECustomerKey=key1,
                       SSECustomerAlgorithm="AES256", SSECustomerKey=key2)
        got = s3.get_object(Bucket=bucket, Key="c2.bin", SSECustomerAlgorithm="AES256", SSECustomerKey=key2)
        expect(got["Body"].read() == body, "copy with a new key: bytes differ")
        s3.copy_object(Bucket=bucket, Key="plain.bin", CopySource={"Bucket": bucket, "Key": "c.bin"},
                       CopySourceSSECustomerAlgorithm="AES256", CopySourceSSECustomerKey=key1)
        got = s3.get_object(Bucket=bucket, Key="plain.bin")
        expect(got["Body"].read() == body and "ServerSideEncryption" not in got, "decrypted copy differs")

    def ssec_multipart():
        # create_multipart_upload / upload_part x2 / complete with SSE-C: a
        # part without the key is 400, with another key 403; the object
        # reads back whole and across the part boundary with the key, and
        # upload_part_copy re-keys a range of it into another upload.
        p1, p2 = data(22, 5 * 1024 * 1024), data(23, 1000)
        c = {"SSECustomerAlgorithm": "AES256", "SSECustomerKey": key1}
        up = s3.create_multipart_upload(Bucket=bucket, Key="mp.bin", **c)
        expect(up.get("SSECustomerAlgorithm") == "AES256", "create_multipart_upload did not answer SSE-C")
        for kwargs, want in (({}, (400, "InvalidRequest")),
                             ({"SSECustomerAlgorithm": "AES256", "SSECustomerKey": key2}, (403, "AccessDenied"))):
            try:
                s3.upload_part(Bucket=bucket, Key="mp.bin", UploadId=up["UploadId"], PartNumber=1, Body=p1, **kwargs)
            except ClientError as exc:
                code, status = error_code(exc)
                expect((status, code) == want, f"upload_part: got {status} {code}, want {want}")
            else:
                raise AssertionError(f"upload_part {sorted(kwargs)} succeeded")
        e1 = s3.upload_part(Bucket=bucket, Key="mp.bin", UploadId=up["UploadId"], PartNumber=1, Body=p1, **c)["ETag"]
        e2 = s3.upload_part(Bucket=bucket, Key="mp.bin", UploadId=up["UploadId"], PartNumber=2, Body=p2, **c)["ETag"]
        done = s3.complete_multipart_upload(Bucket=bucket, Key="mp.bin", UploadId=up["UploadId"],
                                            MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": e1}, {"PartNumber": 2, "ETag": e2}]})
        expect(done["ETag"].strip('"').endswith("-2"), f"multipart ETag {done['ETag']}")
        whole = p1 + p2
        got = s3.get_object(Bucket=bucket, Key="mp.bin", **c)
        expect(got["Body"].read() == whole, "SSE-C multipart get_object bytes differ")
        edge = len(p1)
        got = s3.get_object(Bucket=bucket, Key="mp.bin", Range=f"bytes={edge - 5}-{edge + 4}", **c)
        expect(got["Body"].read() == whole[edge - 5:edge + 5], "SSE-C multipart range across the parts differs")
        up2 = s3.create_multipart_upload(Bucket=bucket, Key="mp2.bin", SSECustomerAlgorithm="AES256", SSECustomerKey=key2)
        cp = s3.upload_part_copy(Bucket=bucket, Key="mp2.bin", UploadId=up2["UploadId"], PartNumber=1,
                                 CopySource={"Bucket": bucket, "Key": "mp.bin"}, CopySourceRange=f"bytes={edge - 5}-{edge + 4}",
                                 CopySourceSSECustomerAlgorithm="AES256", CopySourceSSECustomerKey=key1,
                                 SSECustomerAlgorithm="AES256", SSECustomerKey=key2)
        s3.complete_multipart_upload(Bucket=bucket, Key="mp2.bin", UploadId=up2["UploadId"],
                                     MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": cp["CopyPartResult"]["ETag"]}]})
        got = s3.get_object(Bucket=bucket, Key="mp2.bin", SSECustomerAlgorithm="AES256", SSECustomerKey=key2)
        expect(got["Body"].read() == whole[edge - 5:edge + 5], "upload_part_copy with a new key: bytes differ")

    def sse_s3():
        resp = s3.put_object(Bucket=bucket, Key="s3.bin", Body=body, ServerSideEncryption="AES256")
        expect(resp.get("ServerSideEncryption") == "AES256", f"ServerSideEncryption {resp.get('ServerSideEncryption')}")
        expect(resp["ETag"] == '"%s"' % hashlib.md5(body).hexdigest(), "SSE-S3 ETag is not the MD5")
        expect(s3.get_object(Bucket=bucket, Key="s3.bin")["Body"].read() == body, "SSE-S3 bytes differ")

    def cleanup():
        for k in ("c.bin", "c2.bin", "plain.bin", "s3.bin", "mp.bin", "mp2.bin"):
            s3.delete_object(Bucket=bucket, Key=k)
        s3.delete_bucket(Bucket=bucket)

    r.check("sse: create_bucket", create)
    r.check("sse: SSE-C put_object, get_object and Range", ssec_put_get)
    r.check("sse: SSE-C without the key 400, wrong key 403", ssec_errors)
    r.check("sse: SSE-C copy_object to a new key and to a plain object", ssec_copy)
    r.check("sse: SSE-C multipart upload (key on every part, 400/403 without or with another), range across parts, upload_part_copy re-keyed", ssec_multipart)
    r.check("sse: SSE-S3 put_object (ETag the MD5) and get_object", sse_s3)
    r.check("sse: cleanup", cleanup)


def main():
    endpoint = os.environ.get("E2E_ENDPOINT")
    key_id = os.environ.get("AWS_ACCESS_KEY_ID")
    secret = os.environ.get("AWS_SECRET_ACCESS_KEY")
    if not endpoint or not key_id or not secret:
        print("e2e-boto3: E2E_ENDPOINT, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set")
        return 2

    s3 = boto3.session.Session().client(
        "s3",
        endpoint_url=endpoint,
        region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"),
        aws_access_key_id=key_id,
        aws_secret_access_key=secret,
        config=Config(s3={"addressing_style": "path"}),
    )

    r = Runner()
    if os.environ.get("E2E_SSE_ONLY"):
        sse_checks(r, s3)
        print(f"e2e-boto3: {r.passed} passed, {r.failed} failed")
        return 0 if r.failed == 0 else 1

    small = data(11, 2000)
    big = data(12, 3 * 1024 * 1024)
    tree = {
        "dir/a.txt": b"a",
        "dir/sub/b.txt": b"b",
        "dir/sub/c.txt": b"c",
        "dirty.txt": b"not under dir/",
        "other.txt": b"other",
    }

    def create_bucket():
        s3.create_bucket(Bucket=BUCKET)
        s3.head_bucket(Bucket=BUCKET)

    def put_small():
        resp = s3.put_object(
            Bucket=BUCKET,
            Key="small.bin",
            Body=small,
            ContentType="text/x-e2e",
            Metadata={"colour": "blue"},
        )
        want = '"%s"' % hashlib.md5(small).hexdigest()
        expect(resp["ETag"] == want, f"ETag {resp['ETag']} != {want}")

    def put_big():
        resp = s3.put_object(Bucket=BUCKET, Key="big.bin", Body=big)
        want = '"%s"' % hashlib.md5(big).hexdigest()
        expect(resp["ETag"] == want, f"ETag {resp['ETag']} != {want}")

    def get_objects():
        for key, body in (("small.bin", small), ("big.bin", big)):
            got = s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()
            expect(got == body, f"{key}: got {len(got)} bytes that differ from the {len(body)} put")

    def get_range():
        resp = s3.get_object(Bucket=BUCKET, Key="big.bin", Range="bytes=100-199")
        got = resp["Body"].read()
        expect(resp["ResponseMetadata"]["HTTPStatusCode"] == 206, "status is not 206")
        expect(got == big[100:200], "range bytes differ")
        want = f"bytes 100-199/{len(big)}"
        expect(resp.get("ContentRange") == want, f"ContentRange {resp.get('ContentRange')!r} != {want!r}")

    def head_object():
        resp = s3.head_object(Bucket=BUCKET, Key="small.bin")
        expect(resp["ContentLength"] == len(small), f"ContentLength {resp['ContentLength']}")
        expect(resp["ContentType"] == "text/x-e2e", f"ContentType {resp['ContentType']!r}")
        expect(resp["Metadata"] == {"colour": "blue"}, f"Metadata {resp['Metadata']!r}")

    def list_prefix_delimiter():
        for key, body in tree.items():
            s3.put_object(Bucket=BUCKET, Key=key, Body=body)
        resp = s3.list_objects_v2(Bucket=BUCKET, Prefix="dir/", Delimiter="/")
        keys = [o["Key"] for o in resp.get("Contents", [])]
        prefixes = [p["Prefix"] for p in resp.get("CommonPrefixes", [])]
        expect(keys == ["dir/a.txt"], f"Contents {keys}")
        expect(prefixes == ["dir/sub/"], f"CommonPrefixes {prefixes}")
        expect(resp["KeyCount"] == 2, f"KeyCount {resp['KeyCount']}")
        expect(resp["IsTruncated"] is False, "IsTruncated")
        resp = s3.list_objects_v2(Bucket=BUCKET, Delimiter="/")
        keys = [o["Key"] for o in resp.get("Contents", [])]
        prefixes = [p["Prefix"] for p in resp.get("CommonPrefixes", [])]
        expect(keys == ["big.bin", "dirty.txt", "other.txt", "small.bin"], f"root Contents {keys}")
        expect(prefixes == ["dir/"], f"root CommonPrefixes {prefixes}")

    def list_paginated():
        keys = []
        for page in s3.get_paginator("list_objects_v2").paginate(
            Bucket=BUCKET, PaginationConfig={"PageSize": 2}
        ):
            keys += [o["Key"] for o in page.get("Contents", [])]
        want = sorted(["small.bin", "big.bin", *tree])
        expect(keys == want, f"paginated keys {keys} != {want}")

    def copy_object():
        s3.copy_object(
            Bucket=BUCKET,
            Key="copy/small.bin",
            CopySource={"Bucket": BUCKET, "Key": "small.bin"},
        )
        resp = s3.get_object(Bucket=BUCKET, Key="copy/small.bin")
        expect(resp["Body"].read() == small, "copied bytes differ")
        expect(resp["Metadata"] == {"colour": "blue"}, f"copied Metadata {resp['Metadata']!r}")
        expect(resp["ContentType"] == "text/x-e2e", f"copied ContentType {resp['ContentType']!r}")

    def no_such_key():
        try:
            s3.get_object(Bucket=BUCKET, Key="does/not/exist")
        except ClientError as exc:
            code, status = error_code(exc)
            expect(code == "NoSuchKey", f"error code {code!r}")
            expect(status == 404, f"status {status}")
        else:
            raise AssertionError("get_object of a missing key succeeded")

    def list_object_versions():
        # The paginator boto3 users (and bucket-emptying scripts) call: in a
        # bucket that was never versioned, every key is one "null" version.
        keys = [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])]
        versions, markers = [], []
        pages = s3.get_paginator("list_object_versions").paginate(
            Bucket=BUCKET, PaginationConfig={"PageSize": 2}
        )
        for page in pages:
            versions += page.get("Versions", [])
            markers += page.get("DeleteMarkers", [])
        expect([v["Key"] for v in versions] == keys, f"versions {[v['Key'] for v in versions]}, keys {keys}")
        expect(all(v["VersionId"] == "null" and v["IsLatest"] for v in versions), f"versions {versions[:2]}")
        expect(not markers, f"delete markers {markers}")

    def delete_objects():
        keys = [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])]
        expect(keys, "nothing listed to delete")
        # Delete whatever is there first, so that delete_bucket can still
        # run when an earlier check failed, then judge the result.
        resp = s3.delete_objects(
            Bucket=BUCKET, Delete={"Objects": [{"Key": k} for k in keys]}
        )
        deleted = sorted(d["Key"] for d in resp.get("Deleted", []))
        expect(deleted == sorted(keys), f"Deleted {deleted}")
        expect(len(keys) == 2 + len(tree) + 1, f"listed {keys}")
        expect(not resp.get("Errors"), f"Errors {resp.get('Errors')}")
        left = s3.list_objects_v2(Bucket=BUCKET)
        expect(left["KeyCount"] == 0, f"KeyCount after delete {left['KeyCount']}")

    def delete_bucket():
        s3.delete_bucket(Bucket=BUCKET)
        try:
            s3.head_bucket(Bucket=BUCKET)
        except ClientError as exc:
            _, status = error_code(exc)
            expect(status == 404, f"head_bucket after delete: status {status}")
        else:
            raise AssertionError("head_bucket succeeded after delete_bucket")

    r.check("create_bucket", create_bucket)
    r.check("put_object 2000 B with metadata", put_small)
    r.check("put_object 3 MiB", put_big)
    r.check("get_object bytes match", get_objects)
    r.check("get_object Range", get_range)
    r.check("head_object metadata and content type", head_object)
    r.check("list_objects_v2 Prefix/Delimiter", list_prefix_delimiter)
    r.check("list_objects_v2 paginated", list_paginated)
    r.check("copy_object", copy_object)
    r.check("NoSuchKey is a ClientError", no_such_key)
    r.check("list_object_versions paginated", list_object_versions)
    r.check("delete_objects", delete_objects)
    r.check("delete_bucket", delete_bucket)
    versioning_checks(s3, r)
    sigv2_checks(r, endpoint, key_id, secret)

    print(f"e2e-boto3: {r.passed} passed, {r.failed} failed")
    return 0 if r.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
