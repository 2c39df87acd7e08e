// End-to-end checks of ObjectGateway with the AWS SDK for JavaScript v3 at
// its defaults (flexible checksums computed when supported, aws-chunked
// bodies with trailing checksums for streams, path-style addressing as
// S3-compatible endpoints are set up). Run by .ci/e2e-js.sh:
//   AK=… SK=… node smoke.mjs http://127.0.0.1:PORT
// Every step checks what it gets back; the last line says how many passed,
// and the exit status is 1 when any failed.
import {
  S3Client, CreateBucketCommand, PutObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command,
  CopyObjectCommand, DeleteObjectsCommand, PutObjectTaggingCommand, GetObjectTaggingCommand, GetObjectAttributesCommand,
  PutBucketVersioningCommand, ListObjectVersionsCommand, DeleteObjectCommand, CreateMultipartUploadCommand, UploadPartCommand,
  CompleteMultipartUploadCommand, ListPartsCommand, AbortMultipartUploadCommand, DeleteBucketCommand, GetBucketLocationCommand,
  PutBucketCorsCommand, GetBucketCorsCommand, PutBucketLifecycleConfigurationCommand, GetBucketLifecycleConfigurationCommand,
  PutBucketPolicyCommand, GetBucketPolicyCommand, HeadBucketCommand, ListBucketsCommand, PutObjectAclCommand, GetObjectAclCommand,
  UploadPartCopyCommand, ListMultipartUploadsCommand,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { Readable } from "node:stream";
import crypto from "node:crypto";
import zlib from "node:zlib";

const endpoint = process.argv[2];
const s3 = new S3Client({
  endpoint, region: "us-east-1", forcePathStyle: true,
  credentials: { accessKeyId: process.env.AK, secretAccessKey: process.env.SK },
});

let pass = 0, fail = 0;
async function step(name, fn) {
  try {
    const r = await fn();
    pass++;
    console.log("ok  ", name, typeof r === "string" || typeof r === "number" ? r : "");
  } catch (e) {
    fail++;
    console.log("FAIL", name, e.name, e.message, e.$metadata?.httpStatusCode ?? "");
  }
}
function expect(cond, what) {
  if (!cond) throw new Error(what);
}
const bytesOf = async (out) => Buffer.from(await out.Body.transformToByteArray());
const crc32 = (b) => { const x = Buffer.alloc(4); x.writeUInt32BE(zlib.crc32(b)); return x.toString("base64"); };
const md5 = (b) => `"${crypto.createHash("md5").update(b).digest("hex")}"`;

const B = "js-" + crypto.randomBytes(4).toString("hex");
const big = crypto.randomBytes(12 << 20);

await step("CreateBucket, HeadBucket, GetBucketLocation, ListBuckets", async () => {
  await s3.send(new CreateBucketCommand({ Bucket: B }));
  const h = await s3.send(new HeadBucketCommand({ Bucket: B }));
  expect(h.BucketRegion === "us-east-1", `HeadBucket region ${h.BucketRegion}`);
  const loc = await s3.send(new GetBucketLocationCommand({ Bucket: B }));
  expect(!loc.LocationConstraint, `location ${loc.LocationConstraint}, want none for us-east-1`);
  const l = await s3.send(new ListBucketsCommand({}));
  expect(l.Buckets.some((b) => b.Name === B), "ListBuckets lacks the bucket");
});
await step("PutObject of a string: the default CRC32", async () => {
  const r = await s3.send(new PutObjectCommand({ Bucket: B, Key: "a.txt", Body: "hello" }));
  expect(r.ChecksumCRC32 === crc32(Buffer.from("hello")), `CRC32 ${r.ChecksumCRC32}`);
  expect(r.ETag === md5("hello"), `ETag ${r.ETag}`);
});
await step("PutObject of a stream (aws-chunked, trailing checksum)", async () => {
  const data = crypto.randomBytes(300000);
  const r = await s3.send(new PutObjectCommand({ Bucket: B, Key: "s.bin", ContentLength: data.length,
    Body: Readable.from([data.subarray(0, 100000), data.subarray(100000)]) }));
  expect(r.ChecksumCRC32 === crc32(data), `CRC32 ${r.ChecksumCRC32}`);
  const g = await bytesOf(await s3.send(new GetObjectCommand({ Bucket: B, Key: "s.bin" })));
  expect(g.equals(data), "bytes differ");
});
await step("PutObject with SHA256 and CRC64NVME", async () => {
  const body = "x".repeat(1000);
  const r = await s3.send(new PutObjectCommand({ Bucket: B, Key: "h.txt", Body: body, ChecksumAlgorithm: "SHA256" }));
  expect(r.ChecksumSHA256 === crypto.createHash("sha256").update(body).digest("base64"), `SHA256 ${r.ChecksumSHA256}`);
  const n = await s3.send(new PutObjectCommand({ Bucket: B, Key: "n.txt", Body: body, ChecksumAlgorithm: "CRC64NVME" }));
  expect(n.ChecksumCRC64NVME && n.ChecksumCRC64NVME.length === 12, `CRC64NVME ${n.ChecksumCRC64NVME}`);
});
await step("GetObject in checksum mode, HeadObject, a range", async () => {
  const o = await s3.send(new GetObjectCommand({ Bucket: B, Key: "a.txt", ChecksumMode: "ENABLED" }));
  expect((await bytesOf(o)).toString() === "hello" && o.ChecksumCRC32 === crc32(Buffer.from("hello")), `GET ${o.ChecksumCRC32}`);
  const h = await s3.send(new HeadObjectCommand({ Bucket: B, Key: "a.txt", ChecksumMode: "ENABLED" }));
  expect(h.ContentLength === 5 && h.ChecksumCRC32 === o.ChecksumCRC32, `HEAD ${h.ContentLength} ${h.ChecksumCRC32}`);
  const r = await s3.send(new GetObjectCommand({ Bucket: B, Key: "a.txt", Range: "bytes=1-3" }));
  expect((await bytesOf(r)).toString() === "ell" && r.ContentRange === "bytes 1-3/5", `range ${r.ContentRange}`);
});
await step("lib-storage Upload of 12 MiB in 5 MiB parts", async () => {
  const r = await new Upload({ client: s3, params: { Bucket: B, Key: "big.bin", Body: Readable.from([big]) }, partSize: 5 << 20 }).done();
  expect(/-3"$/.test(r.ETag), `ETag ${r.ETag}`);
  const g = await bytesOf(await s3.send(new GetObjectCommand({ Bucket: B, Key: "big.bin" })));
  expect(g.equals(big), "bytes differ");
});
await step("lib-storage Upload with SHA256", async () => {
  const data = crypto.randomBytes(11 << 20);
  const r = await new Upload({ client: s3, params: { Bucket: B, Key: "bigsha.bin", Body: data, ChecksumAlgorithm: "SHA256" }, partSize: 5 << 20 }).done();
  expect(/-3$/.test(r.ChecksumSHA256 || ""), `SHA256 ${r.ChecksumSHA256}`);
});
await step("multipart with CRC32 parts: ListParts, ListMultipartUploads, Complete, GetObjectAttributes", async () => {
  const c = await s3.send(new CreateMultipartUploadCommand({ Bucket: B, Key: "mp", ChecksumAlgorithm: "CRC32" }));
  const p1 = crypto.randomBytes(5 << 20), p2 = crypto.randomBytes(1000);
  const u1 = await s3.send(new UploadPartCommand({ Bucket: B, Key: "mp", UploadId: c.UploadId, PartNumber: 1, Body: p1, ChecksumAlgorithm: "CRC32" }));
  const u2 = await s3.send(new UploadPartCommand({ Bucket: B, Key: "mp", UploadId: c.UploadId, PartNumber: 2, Body: p2, ChecksumAlgorithm: "CRC32" }));
  expect(u1.ChecksumCRC32 === crc32(p1) && u2.ChecksumCRC32 === crc32(p2), "part checksums");
  const lp = await s3.send(new ListPartsCommand({ Bucket: B, Key: "mp", UploadId: c.UploadId }));
  expect(lp.Parts.length === 2 && lp.Parts[1].Size === 1000, `ListParts ${lp.Parts.length}`);
  const lu = await s3.send(new ListMultipartUploadsCommand({ Bucket: B }));
  expect(lu.Uploads.some((u) => u.UploadId === c.UploadId), "ListMultipartUploads lacks the upload");
  const r = await s3.send(new CompleteMultipartUploadCommand({ Bucket: B, Key: "mp", UploadId: c.UploadId, MultipartUpload: { Parts: [
    { PartNumber: 1, ETag: u1.ETag, ChecksumCRC32: u1.ChecksumCRC32 }, { PartNumber: 2, ETag: u2.ETag, ChecksumCRC32: u2.ChecksumCRC32 }] } }));
  const composite = crc32(Buffer.concat([Buffer.from(u1.ChecksumCRC32, "base64"), Buffer.from(u2.ChecksumCRC32, "base64")])) + "-2";
  expect(r.ChecksumCRC32 === composite && r.ChecksumType === "COMPOSITE", `Complete ${r.ChecksumCRC32} ${r.ChecksumType}, want ${composite}`);
  const at = await s3.send(new GetObjectAttributesCommand({ Bucket: B, Key: "mp", ObjectAttributes: ["ETag", "Checksum", "ObjectParts", "ObjectSize"] }));
  expect(at.Checksum?.ChecksumCRC32 === composite.slice(0, -2) && at.ObjectParts?.TotalPartsCount === 2 && at.ObjectSize === p1.length + p2.length,
    `attributes ${at.Checksum?.ChecksumCRC32} ${at.ObjectParts?.TotalPartsCount} ${at.ObjectSize}`);
});
await step("UploadPartCopy of a range, AbortMultipartUpload", async () => {
  const c = await s3.send(new CreateMultipartUploadCommand({ Bucket: B, Key: "upc" }));
  const p = await s3.send(new UploadPartCopyCommand({ Bucket: B, Key: "upc", UploadId: c.UploadId, PartNumber: 1, CopySource: `${B}/a.txt`, CopySourceRange: "bytes=0-2" }));
  await s3.send(new CompleteMultipartUploadCommand({ Bucket: B, Key: "upc", UploadId: c.UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: p.CopyPartResult.ETag }] } }));
  expect((await bytesOf(await s3.send(new GetObjectCommand({ Bucket: B, Key: "upc" })))).toString() === "hel", "UploadPartCopy bytes");
  const a = await s3.send(new CreateMultipartUploadCommand({ Bucket: B, Key: "ab" }));
  await s3.send(new AbortMultipartUploadCommand({ Bucket: B, Key: "ab", UploadId: a.UploadId }));
});
await step("CopyObject: plain, of an object uploaded in parts, keys with spaces and non-ASCII", async () => {
  const r = await s3.send(new CopyObjectCommand({ Bucket: B, Key: "a2.txt", CopySource: `${B}/a.txt` }));
  expect(r.CopyObjectResult.ETag === md5("hello"), `ETag ${r.CopyObjectResult.ETag}`);
  const m = await s3.send(new CopyObjectCommand({ Bucket: B, Key: "big2.bin", CopySource: `${B}/big.bin` }));
  expect(m.CopyObjectResult.ETag === md5(big), `copy of a multipart object: ETag ${m.CopyObjectResult.ETag}, want the MD5 of its content`);
  await s3.send(new PutObjectCommand({ Bucket: B, Key: "dir/ä b+c%.txt", Body: "u" }));
  await s3.send(new CopyObjectCommand({ Bucket: B, Key: "dir/copy ü.txt", CopySource: encodeURIComponent(`${B}/dir/ä b+c%.txt`).replace(/%2F/g, "/") }));
  expect((await bytesOf(await s3.send(new GetObjectCommand({ Bucket: B, Key: "dir/copy ü.txt" })))).toString() === "u", "copied bytes");
});
await step("object tagging and ACL", async () => {
  await s3.send(new PutObjectTaggingCommand({ Bucket: B, Key: "a.txt", Tagging: { TagSet: [{ Key: "k", Value: "v" }] } }));
  const t = await s3.send(new GetObjectTaggingCommand({ Bucket: B, Key: "a.txt" }));
  expect(t.TagSet.length === 1 && t.TagSet[0].Key === "k" && t.TagSet[0].Value === "v", "TagSet");
  await s3.send(new PutObjectAclCommand({ Bucket: B, Key: "a.txt", ACL: "public-read" }));
  const acl = await s3.send(new GetObjectAclCommand({ Bucket: B, Key: "a.txt" }));
  expect(acl.Grants.some((g) => g.Grantee.URI === "http://acs.amazonaws.com/groups/global/AllUsers" && g.Permission === "READ"), "public-read grant");
});
await step("ListObjectsV2 with a delimiter, and paged", async () => {
  const l = await s3.send(new ListObjectsV2Command({ Bucket: B, Delimiter: "/" }));
  expect(l.CommonPrefixes?.length === 1 && l.CommonPrefixes[0].Prefix === "dir/", "CommonPrefixes");
  const all = await s3.send(new ListObjectsV2Command({ Bucket: B }));
  let n = 0, token;
  do {
    const p = await s3.send(new ListObjectsV2Command({ Bucket: B, MaxKeys: 2, ContinuationToken: token }));
    n += p.KeyCount;
    token = p.NextContinuationToken;
  } while (token);
  expect(n === all.KeyCount && n === 12, `paged ${n}, whole ${all.KeyCount}`);
});
await step("presigned GET and PUT", async () => {
  const get = await fetch(await getSignedUrl(s3, new GetObjectCommand({ Bucket: B, Key: "a.txt" }), { expiresIn: 60 }));
  expect(get.status === 200 && (await get.text()) === "hello", `GET ${get.status}`);
  const put = await fetch(await getSignedUrl(s3, new PutObjectCommand({ Bucket: B, Key: "pp.txt" }), { expiresIn: 60 }), { method: "PUT", body: "presigned" });
  expect(put.status === 200, `PUT ${put.status}`);
  expect((await bytesOf(await s3.send(new GetObjectCommand({ Bucket: B, Key: "pp.txt" })))).toString() === "presigned", "presigned PUT bytes");
});
await step("bucket CORS, lifecycle and policy", async () => {
  await s3.send(new PutBucketCorsCommand({ Bucket: B, CORSConfiguration: { CORSRules: [{ AllowedMethods: ["GET"], AllowedOrigins: ["*"] }] } }));
  expect((await s3.send(new GetBucketCorsCommand({ Bucket: B }))).CORSRules.length === 1, "CORS rules");
  await s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket: B, LifecycleConfiguration: { Rules: [
    { ID: "r", Status: "Enabled", Filter: { Prefix: "tmp/" }, Expiration: { Days: 1 } }] } }));
  const lc = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: B }));
  expect(lc.Rules.length === 1 && lc.Rules[0].Expiration.Days === 1, "lifecycle rules");
  const policy = { Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: "*", Action: "s3:GetObject", Resource: `arn:aws:s3:::${B}/*` }] };
  await s3.send(new PutBucketPolicyCommand({ Bucket: B, Policy: JSON.stringify(policy) }));
  const got = JSON.parse((await s3.send(new GetBucketPolicyCommand({ Bucket: B }))).Policy);
  expect(got.Statement[0].Action === "s3:GetObject", "policy");
});
await step("versioning: versions, a delete marker, DeleteObjects of every version", async () => {
  await s3.send(new PutBucketVersioningCommand({ Bucket: B, VersioningConfiguration: { Status: "Enabled" } }));
  const v1 = await s3.send(new PutObjectCommand({ Bucket: B, Key: "v", Body: "1" }));
  await s3.send(new PutObjectCommand({ Bucket: B, Key: "v", Body: "2" }));
  await s3.send(new DeleteObjectCommand({ Bucket: B, Key: "v" }));
  const old = await s3.send(new GetObjectCommand({ Bucket: B, Key: "v", VersionId: v1.VersionId }));
  expect((await bytesOf(old)).toString() === "1", "first version's bytes");
  const l = await s3.send(new ListObjectVersionsCommand({ Bucket: B, Prefix: "v" }));
  expect(l.Versions.length === 2 && l.DeleteMarkers.length === 1 && l.DeleteMarkers[0].IsLatest, "versions of v");
  const vs = await s3.send(new ListObjectVersionsCommand({ Bucket: B }));
  const objects = [...(vs.Versions || []), ...(vs.DeleteMarkers || [])].map((v) => ({ Key: v.Key, VersionId: v.VersionId }));
  const r = await s3.send(new DeleteObjectsCommand({ Bucket: B, Delete: { Objects: objects } }));
  expect(r.Deleted?.length === objects.length && !r.Errors?.length, `deleted ${r.Deleted?.length} of ${objects.length}`);
  await s3.send(new DeleteBucketCommand({ Bucket: B }));
});

console.log(`e2e-js: ${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);
