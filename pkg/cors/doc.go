// Package cors parses S3 bucket CORS configurations and matches browser
// requests against them.
//
// Parse validates a CORSConfiguration document the way S3 does (at most
// 100 rules; each with at least one AllowedOrigin and AllowedMethod;
// methods GET, PUT, POST, DELETE and HEAD; at most one '*' in an
// AllowedOrigin or AllowedHeader; no wildcard in ExposeHeader) and
// returns a Config whose Marshal output is the canonical document the
// gateway stores and returns. Match picks the first rule that allows a
// request, as S3 does, and Headers renders that rule's response headers.
//
// Everything here is pure: no I/O, no net/http. A *Config is immutable
// after Parse and safe for concurrent use.
package cors
