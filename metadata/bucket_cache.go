package metadata

import (
	"context"
	"encoding/hex"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Every S3 request reads its bucket's record (its owner, policy and ACL
// for the access decision, its versioning, its default Cache-Control):
// with bbolt a read of the memory map, with PostgreSQL a round trip each.
// A shared catalogue therefore keeps the records it read in memory, and
// learns of every change to one from the database: a trigger on the
// records' rows sends NOTIFY og_buckets with the bucket's name, and each
// gateway LISTENs on a connection of its own and drops the record named.
// The gateway's own writes drop what they changed when they commit, so a
// gateway reads its own changes at once; another gateway's change reaches
// it as fast as PostgreSQL delivers the notification (milliseconds), which
// is what "a setting changed through any gateway takes effect on all"
// means here. While the listening connection is down nothing is cached,
// and every record it may have missed is dropped when it is back.
//
// Writes do not trust the cache: they read their bucket's state from the
// catalogue once they hold its lock (Index.FreshBucketState), so a bucket
// deleted and created again under the same name meanwhile is never
// written into by a request authorized against the first one.

// bucketCache is the shared catalogue's cache of encoded bucket records.
type bucketCache struct {
	mu sync.RWMutex
	// records maps a bucket name to its encoded record, or to nil for a
	// bucket known not to exist.
	records map[string][]byte
	// epoch counts invalidations: a record read from the catalogue is
	// kept only if no invalidation came between the read and the store.
	epoch atomic.Uint64
	// live is set while the listening connection is up.
	live atomic.Bool
}

// listenerName is the application_name of the listening connections, by
// which an operator (pg_stat_activity) tells them from the pools'.
const listenerName = "objectgateway bucket listener"

// listenBeat is how often a quiet listening connection is made to prove
// it is alive, and how long it has to answer.
const listenBeat = time.Second

// maxCachedBuckets bounds the cache; past it, it starts over.
const maxCachedBuckets = 100_000

// get returns the cached record of name: ok is false when the cache has
// nothing to say, v is nil for a bucket known not to exist.
func (c *bucketCache) get(name string) (v []byte, ok bool) {
	if c == nil || !c.live.Load() {
		return nil, false
	}
	c.mu.RLock()
	v, ok = c.records[name]
	c.mu.RUnlock()
	return v, ok
}

// put keeps the record v of name (nil: no such bucket), read from the
// catalogue when the epoch was epoch.
func (c *bucketCache) put(name string, v []byte, epoch uint64) {
	if c == nil || !c.live.Load() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epoch.Load() != epoch {
		return
	}
	if len(c.records) >= maxCachedBuckets {
		clear(c.records)
	}
	c.records[name] = v
}

// drop forgets name's record.
func (c *bucketCache) drop(name string) {
	c.mu.Lock()
	c.epoch.Add(1)
	delete(c.records, name)
	c.mu.Unlock()
}

// dropAll forgets every record.
func (c *bucketCache) dropAll() {
	c.mu.Lock()
	c.epoch.Add(1)
	clear(c.records)
	c.mu.Unlock()
}

// bucketsPath is the path of the top-level bucket of bucket records in
// og_kv, which the notifying trigger watches.
var bucketsPath = childPath(nil, bucketsBucket)

// listen keeps a connection LISTENing to og_buckets until ctx ends,
// dropping the records named by notifications, and reconnecting (with
// the cache off meanwhile) when the connection fails.
func (e *pgEngine) listen(ctx context.Context, cfg *pgx.ConnConfig, c *bucketCache) {
	defer close(e.listening)
	wait := 100 * time.Millisecond
	for ctx.Err() == nil {
		// Whatever ended the connection, the cache stays off until the
		// next one listens; the package has no log to tell it to, and a
		// cache off costs only round trips.
		e.listenOnce(ctx, cfg, c)
		wasLive := c.live.Swap(false)
		c.dropAll()
		if ctx.Err() != nil {
			return
		}
		if wasLive {
			// A connection that worked starts the waits over.
			wait = 100 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

func (e *pgEngine) listenOnce(ctx context.Context, cfg *pgx.ConnConfig, c *bucketCache) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `LISTEN og_buckets`); err != nil {
		return err
	}
	// Whatever changed while no one listened is unknown: start empty.
	c.dropAll()
	c.live.Store(true)
	for {
		// A connection that died without a word (a peer gone behind a
		// firewall that drops packets) would keep the cache live and
		// stale: after listenBeat without a notification the connection
		// must answer a query within listenBeat, or the cache goes off
		// and the connection is made again.
		wctx, cancel := context.WithTimeout(ctx, listenBeat)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			pctx, cancel := context.WithTimeout(ctx, listenBeat)
			_, err = conn.Exec(pctx, "SELECT 1")
			cancel()
			if err == nil {
				continue
			}
		}
		if err != nil {
			return err
		}
		name, err := hex.DecodeString(n.Payload)
		if err != nil {
			c.dropAll()
			continue
		}
		c.drop(string(name))
	}
}
