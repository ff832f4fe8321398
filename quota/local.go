package quota

import (
	"context"
	"sync"
	"time"

	"github.com/hensachi/hensachi"
)

// Local is the quota of a single process (the embedded store). Counts live in memory and are
// written to the store in one transaction per second, so no request waits for a disk write; a
// crash loses at most the last second's counts, which a restarted process does not know of.
type Local struct {
	store  hensachi.Store
	limits hensachi.Limits
	now    func() time.Time

	mu     sync.Mutex
	counts map[hensachi.UsageKey]*counter
}

type counter struct {
	m         *Local
	used      int64 // successes, persisted or not
	pending   int64 // reservations not yet committed or released
	unflushed int64 // successes not yet written to the store
}

// NewLocal loads today's counts from the store, so that a restart keeps them.
func NewLocal(ctx context.Context, store hensachi.Store, limits hensachi.Limits, now func() time.Time) (*Local, error) {
	m := &Local{store: store, limits: limits, now: now, counts: map[hensachi.UsageKey]*counter{}}
	usage, err := store.Usage(ctx, hensachi.Day(now()), 0)
	if err != nil {
		return nil, err
	}
	for _, u := range usage {
		m.counts[u.UsageKey] = &counter{m: m, used: u.Count}
	}
	return m, nil
}

// Reserve holds one call for the account on the service. It fails with EDailyLimitExceeded when
// the day's successes reach the limit, and with EOverloaded while calls in progress hold the rest.
func (m *Local) Reserve(_ context.Context, account hensachi.Account, service hensachi.Service) (*Reservation, error) {
	now := m.now()
	key := hensachi.UsageKey{AccountID: account.ID, Service: service, Day: hensachi.Day(now)}
	limit := m.limits.Daily(account.Plan, service)
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.counts[key]
	if c == nil {
		c = &counter{m: m}
		m.counts[key] = c
	}
	switch {
	case c.used >= limit:
		return nil, LimitError(account, service, limit, hensachi.NextReset(now).Sub(now))
	case c.used+c.pending >= limit:
		return nil, busyError(service, time.Second)
	}
	c.pending++
	return &Reservation{counter: c}, nil
}

func (c *counter) finish(r *Reservation, success bool) int64 {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
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
func (m *Local) Used(accountID int64, service hensachi.Service) int64 {
	key := hensachi.UsageKey{AccountID: accountID, Service: service, Day: hensachi.Day(m.now())}
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.counts[key]; c != nil {
		return c.used
	}
	return 0
}

// Flush writes the counts not yet stored. On failure they are kept for the next attempt.
func (m *Local) Flush(ctx context.Context) error {
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
				c = &counter{m: m, used: d.Count}
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
func (m *Local) Run(ctx context.Context) {
	runFlushes(ctx, func(ctx context.Context, final bool) error { return m.Flush(ctx) })
}
