package hensachi

import (
	"context"
	"errors"
	"time"
)

// QuotaStore is a Store that several server processes can share while every daily limit stays
// exact. The embedded store serves one process and does not implement it; the PostgreSQL store does.
//
// A process leases units of a counter's quota in blocks and hands them to calls from memory, so a
// call needs no database round trip while its process holds units. For each counter the store keeps
// the successes recorded (Count) and the units leased and not yet used or given back (Leased), and
// no lease ever lets Count+Leased exceed the limit it is asked under; a process uses no unit it has
// not leased, so the successes of all processes together never exceed the limit. A process later
// moves the units it used from Leased to Count and gives back those it will not use.
//
// Each lease belongs to the process that took it (its owner) and lives for the store's lease TTL
// after the owner's last sync; every sync renews all of its owner's leases, so a live process
// heartbeats with an empty sync. The units of an expired lease go back to the pool when its counter
// is next synced: a process killed without giving its units back strands them for one TTL, not for
// the rest of the day. A process that cannot sync for half a TTL stops using its units.
type QuotaStore interface {
	Store
	// SyncQuota applies the syncs of owner in one transaction, renews owner's leases, and returns
	// the state of each counter after it, in the order of syncs.
	SyncQuota(ctx context.Context, owner string, syncs []QuotaSync) ([]QuotaState, error)
	// QuotaLeaseTTL is how long a lease lives after its owner's last sync.
	QuotaLeaseTTL() time.Duration
}

// DefaultQuotaLeaseTTL is how long a lease lives after its owner's last sync.
const DefaultQuotaLeaseTTL = 30 * time.Second

// QuotaSync is what one process reports and asks for on one counter.
type QuotaSync struct {
	UsageKey
	Used     int64 // leased units that became successes: they move from Leased to Count
	Returned int64 // leased units given back unused
	Want     int64 // units to lease now
	Limit    int64 // the daily limit new units are leased under; read only when Want > 0
}

// QuotaState is a counter after a sync.
type QuotaState struct {
	Granted int64 // units leased by this sync, 0 to Want
	Count   int64 // successes recorded, by every process
	Leased  int64 // units leased and not yet used or given back, by every process
}

// ErrQuotaUnchanged is wrapped by a SyncQuota failure that is known to have changed nothing (the
// transaction never reached its commit), so the caller may keep what it sent and send it again.
// After any other failure the outcome is unknown: units sent back must not be used again (at worst
// they stay leased until the day ends), and units reported used may be reported again (at worst the
// count comes out high). Either way a limit can only become stricter.
var ErrQuotaUnchanged = errors.New("quota unchanged")
