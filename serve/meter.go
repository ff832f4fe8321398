package serve

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/hensachi/hensachi"
)

// quota enforces the daily limits, exactly: a call first reserves one unit, and the reservation
// becomes a count only when the call succeeds. Reserved-but-unfinished calls hold their unit, so
// however many calls run at once, no more than the limit can succeed.
//
// Meter does this for one process, with the counts in memory; leaseMeter does it for several
// processes that share a database (a hensachi.QuotaStore), each holding a leased share of a
// counter's quota.
type quota interface {
	// Reserve holds one unit of the account's quota on the service for a call. It fails with
	// EDailyLimitExceeded (429) when no unit is left, and with EUnavailable (503) when the units
	// live in a database that cannot be reached.
	Reserve(ctx context.Context, account hensachi.Account, service hensachi.Service) (*Reservation, error)
	// Used returns the day's count for an account and service as this process knows it.
	Used(accountID int64, service hensachi.Service) int64
	// Run writes counts to the store until ctx ends, then once more.
	Run(ctx context.Context)
}

// newQuota picks the meter a store needs: leases when several processes may share it.
func newQuota(ctx context.Context, store hensachi.Store, limits hensachi.Limits, now func() time.Time) (quota, error) {
	if qs, ok := store.(hensachi.QuotaStore); ok {
		return newLeaseMeter(ctx, qs, limits, now)
	}
	return NewMeter(ctx, store, limits, now)
}

// Reservation is one unit of quota held by a call in progress.
type Reservation struct {
	owner interface {
		// finish ends the reservation once, as a success or not, and returns the day's count.
		finish(r *Reservation, success bool) int64
	}
	key  hensachi.UsageKey
	done bool // guarded by the owner's lock
}

// Commit turns the reservation into a counted call and returns the day's count including it.
func (r *Reservation) Commit() int64 { return r.owner.finish(r, true) }

// Release gives the unit back: the call failed and does not count. Releasing a committed
// reservation does nothing, so it can be deferred.
func (r *Reservation) Release() { r.owner.finish(r, false) }

// limitError refuses a call at the limit; after is the Retry-After.
func limitError(account hensachi.Account, service hensachi.Service, limit int64, after time.Duration) error {
	return &retryError{
		err:   hensachi.Errorf(hensachi.EDailyLimitExceeded, "the daily limit of %d %s calls for the %s plan is reached; it resets at 00:00 Asia/Tokyo", limit, service, account.Plan),
		after: after,
	}
}

// Meter is the quota of a single process (the embedded store). Counts live in memory and are
// written to the store in one transaction per second, so no request waits for a disk write; a
// crash loses at most the last second's counts, which a restarted process does not know of.
type Meter struct {
	store  hensachi.Store
	limits hensachi.Limits
	now    func() time.Time

	mu     sync.Mutex
	counts map[hensachi.UsageKey]*counter
}

type counter struct {
	used      int64 // successes, persisted or not
	pending   int64 // reservations not yet committed or released
	unflushed int64 // successes not yet written to the store
}

// FlushInterval is how often counts are written to the store, and so about how many seconds of
// counts a crash can lose.
const FlushInterval = time.Second

// NewMeter loads today's counts from the store, so that a restart keeps them.
func NewMeter(ctx context.Context, store hensachi.Store, limits hensachi.Limits, now func() time.Time) (*Meter, error) {
	m := &Meter{store: store, limits: limits, now: now, counts: map[hensachi.UsageKey]*counter{}}
	usage, err := store.Usage(ctx, hensachi.Day(now()), 0)
	if err != nil {
		return nil, err
	}
	for _, u := range usage {
		m.counts[u.UsageKey] = &counter{used: u.Count}
	}
	return m, nil
}

// Reserve holds one call for the account on the service, or fails with EDailyLimitExceeded.
func (m *Meter) Reserve(_ context.Context, account hensachi.Account, service hensachi.Service) (*Reservation, error) {
	now := m.now()
	key := hensachi.UsageKey{AccountID: account.ID, Service: service, Day: hensachi.Day(now)}
	limit := m.limits.Daily(account.Plan, service)
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.counts[key]
	if c == nil {
		c = &counter{}
		m.counts[key] = c
	}
	if c.used+c.pending >= limit {
		return nil, limitError(account, service, limit, hensachi.NextReset(now).Sub(now))
	}
	c.pending++
	return &Reservation{owner: m, key: key}, nil
}

func (m *Meter) finish(r *Reservation, success bool) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.counts[r.key]
	if !r.done {
		r.done = true
		c.pending--
		if success {
			c.used++
			c.unflushed++
		}
	}
	return c.used
}

// Used returns the day's count for an account and service.
func (m *Meter) Used(accountID int64, service hensachi.Service) int64 {
	key := hensachi.UsageKey{AccountID: accountID, Service: service, Day: hensachi.Day(m.now())}
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.counts[key]; c != nil {
		return c.used
	}
	return 0
}

// Flush writes the counts not yet stored. On failure they are kept for the next attempt.
func (m *Meter) Flush(ctx context.Context) error {
	today := hensachi.Day(m.now())
	var deltas []hensachi.Usage
	m.mu.Lock()
	for k, c := range m.counts {
		if c.unflushed > 0 {
			deltas = append(deltas, hensachi.Usage{UsageKey: k, Count: c.unflushed})
			c.unflushed = 0
		}
		if k.Day < today && c.pending == 0 && c.unflushed == 0 {
			delete(m.counts, k) // a past day that nothing refers to any more
		}
	}
	m.mu.Unlock()
	if len(deltas) == 0 {
		return nil
	}
	if err := m.store.AddUsage(ctx, deltas); err != nil {
		m.mu.Lock()
		for _, d := range deltas {
			c := m.counts[d.UsageKey]
			if c == nil {
				c = &counter{used: d.Count}
				m.counts[d.UsageKey] = c
			}
			c.unflushed += d.Count
		}
		m.mu.Unlock()
		return err
	}
	return nil
}

// Run flushes every FlushInterval until ctx ends, then flushes once more.
func (m *Meter) Run(ctx context.Context) {
	runFlushes(ctx, func(ctx context.Context, final bool) error { return m.Flush(ctx) })
}

// runFlushes calls flush every FlushInterval until ctx ends, then once more as the final one.
func runFlushes(ctx context.Context, flush func(ctx context.Context, final bool) error) {
	t := time.NewTicker(FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := flush(ctx, false); err != nil {
				slog.Error("write usage counts", "err", err)
			}
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if err := flush(fctx, true); err != nil {
				slog.Error("write usage counts at shutdown", "err", err)
			}
			cancel()
			return
		}
	}
}
