// Package edge is ObjectGateway's edge mode: a disk cache in front of a
// remote S3 origin, serving GET and HEAD of the origin's objects.
//
// The shape:
//
//   - An object is cached as one file under Dir/data, named by a random id
//     per cached version, and cut into fixed-size slices (Options.SliceSize).
//     Slices are fetched from the origin with ranged GETs, each at most
//     once at a time however many clients ask (a fill); every client
//     wanting a slice being filled streams the bytes already written and
//     then the rest as they arrive. A range request on a miss fetches only
//     the slices it covers.
//   - The catalogue is a bbolt index beside the files (Dir/catalog.db): one
//     record per object of that directory with its headers, freshness and
//     the set of slices that are complete and synced. A slice enters the catalogue only
//     after its bytes are on disk, so a restart keeps every complete slice
//     and never serves an interrupted fill.
//   - Capacity is a byte budget per directory (Options.MaxBytes, or each
//     Disk's) over the objects' sizes, evicting the least recently used objects whole (one file each: no
//     fragmentation inside a shared store).
//   - Freshness comes from the origin's Cache-Control (s-maxage, max-age,
//     no-cache, no-store, private, stale-if-error) or Expires, else
//     Options.DefaultTTL. A stale object is revalidated with a HEAD: the
//     same ETag makes it fresh again without a download, with the headers
//     that answer carries. While the origin cannot be reached, a stale
//     object is served for at most its stale-if-error window.
//   - A hit (hit.go) costs an lseek and a sendfile on a descriptor of the
//     object's file kept open for the next hits, with a header block
//     computed once per cached version, and no catalogue transaction; the
//     memory tier (Options.Memory) answers objects up to 48 KiB.
//   - There may be several cache disks (Options.Disks), each with its own
//     directory, catalogue, byte budget, LRU list, failure state and
//     probe. A new object goes to the healthy disk that rendezvous
//     hashing of its key, weighted by the disks' budgets, picks (see
//     disks.go); an entry is found by key wherever it lives.
//   - A cache disk that fails (EIO, read-only, full) is dropped from
//     placement until a periodic probe finds it healthy and reattaches it
//     with the objects its catalogue still describes. Its share of new
//     objects goes to the other disks; with no healthy disk left the
//     cache is in pass-through: requests go to the origin and are relayed
//     without being stored.
//   - A HEAD miss is answered by one origin HEAD (shared by concurrent
//     misses), and origin 404s by the cache for Options.NegativeTTL; both
//     are kept in memory only, beside the entries (miss.go).
//   - X-Cache says HIT (or REVALIDATED, STALE) only when every byte of
//     the answer is in the cache as it starts; MISS when any comes from
//     the origin. An error returned once the answer started means its
//     body was cut; the caller aborts the connection.
//
// Nothing here knows S3 operations beyond GET and HEAD of an object; the
// api package routes those to Cache.Serve and answers everything else.
package edge
