package serve

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/hensachi/hensachi"
)

// Meter counts successful calls per account, service and Tokyo day, and enforces daily limits
// exactly: a call first reserves one unit, and the reservation becomes a count only when the
// call succeeds. Reserved-but-unfinished calls hold their unit, so however many calls run at once,
// no more than the limit can succeed.
//
// Counts live in memory and are written to the store in one transaction per second, so no request
// waits for a disk write; a crash loses at most the last second's counts.
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

// Reservation is one unit of quota held by a call in progress.
type Reservation struct {
	m    *Meter
	key  hensachi.UsageKey
	done bool
}

// Reserve holds one call for the account on the service, or fails with EDailyLimitExceeded.
func (m *Meter) Reserve(account hensachi.Account, service hensachi.Service) (*Reservation, error) {
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
		return nil, &retryError{
			err:   hensachi.Errorf(hensachi.EDailyLimitExceeded, "the daily limit of %d %s calls for the %s plan is reached; it resets at 00:00 Asia/Tokyo", limit, service, account.Plan),
			after: hensachi.NextReset(now).Sub(now),
		}
	}
	c.pending++
	return &Reservation{m: m, key: key}, nil
}

// Commit turns the reservation into a counted call and returns the day's count including it.
func (r *Reservation) Commit() int64 {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	c := r.m.counts[r.key]
	if !r.done {
		r.done = true
		c.pending--
		c.used++
		c.unflushed++
	}
	return c.used
}

// Release gives the unit back: the call failed and does not count. Releasing a committed
// reservation does nothing, so it can be deferred.
func (r *Reservation) Release() {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	if !r.done {
		r.done = true
		r.m.counts[r.key].pending--
	}
}

// Limit returns an account's daily limit on a service.
func (m *Meter) Limit(account hensachi.Account, service hensachi.Service) int64 {
	return m.limits.Daily(account.Plan, service)
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
	t := time.NewTicker(FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := m.Flush(ctx); err != nil {
				slog.Error("write usage counts", "err", err)
			}
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if err := m.Flush(fctx); err != nil {
				slog.Error("write usage counts at shutdown", "err", err)
			}
			cancel()
			return
		}
	}
}
