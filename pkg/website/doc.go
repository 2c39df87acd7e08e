// Package website owns the pure logic of static website hosting: the
// WebsiteConfiguration document of PutBucketWebsite (Parse, Marshal), the
// mapping of a website request to an object key (index documents), the
// redirects a configuration asks for (RedirectAllRequestsTo and routing
// rules), and the HTML error pages a website endpoint answers with.
//
// Nothing here does I/O: the api package reads the bucket record and the
// objects and calls these functions to decide what to answer.
//
// # Caveats
//
// Routing rules are evaluated in document order and the first match
// wins, as in S3. A rule whose condition names an HTTP error code is
// evaluated only once the object lookup has failed with that code
// (AfterError); a rule without one is evaluated before the lookup
// (BeforeLookup).
package website
