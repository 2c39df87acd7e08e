// Package api is the HTTP face of ObjectGateway: it routes S3 requests
// (path-style and virtual-hosted-style) to the AWS action they name,
// authenticates them with SigV4, decodes their payloads, calls the object
// layer and renders S3 XML.
//
// Handlers are thin: parse (pure functions, table-tested) → call the object
// layer → render. A handler returns an error instead of writing one; errors
// become S3 XML in exactly one place (writeError), and nothing is written
// after a handler has started a response. Every response carries
// x-amz-request-id, and every request produces one access-log line.
//
// GET bytes go from the object's *os.File straight to the connection with
// io.CopyN, which the runtime turns into sendfile; the response-writer
// wrapper forwards ReadFrom so that path is kept.
package api
