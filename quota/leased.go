package quota

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/hensachi/hensachi"
)

// Leased is the quota of a process that shares its database with other server processes
// (replicas behind a load balancer). Each process leases units of a counter's quota from the store
// in blocks (hensachi.QuotaStore: the store never lets count + leased exceed the limit) and hands
// them to calls from memory, exactly as Local does with its counts; a unit a call does not use
// goes back to the process's block. So the successes of all processes together never exceed the
// limit, and a call costs a database round trip only when its process's block is empty.
//
// Blocks adapt to the call rate: none ahead while calls are rare (a unit is leased when a call
// needs it), doubling while blocks run out fast, up to maxBlock, and never more than 1/aheadShare
// of what the store has left unleased, so near the limit a process holds little more than what its
// calls in progress need and other processes can still lease the rest.
//
// Every FlushInterval the units used are reported (they move from leased to count in the store),
// and the units of a counter that had no call since the previous flush are given back, as are all
// units at shutdown and at the end of a day: a unit held idle here is a unit another replica may
// need to reach the limit.
//
// A limit is applied when units are leased: after the operator lowers a plan, a block leased
// under the old limit is still used, so the new limit can be passed by what the replicas held.
//
// Every sync renews this process's leases (a flush with nothing to report still syncs while units
// are held: the heartbeat). What a crash loses: the units this process held stay leased until its
// leases expire (the store's lease TTL, 30 s by default) and then go back to the pool — the units
// of the successes of its last second with them, which were never reported: like the embedded
// store at a crash, the day's count can come out low by those. A process that cannot sync for half
// a TTL stops using the units it holds, so it never uses units the store has taken back.
type Leased struct {
	store  hensachi.QuotaStore
	limits hensachi.Limits
	now    func() time.Time
	owner  string // this process, as the store knows its leases

	mu       sync.Mutex
	counts   map[hensachi.UsageKey]*lease
	loggedAt time.Time // the last failed lease logged
	// renewed is when the last successful sync began: the store keeps this process's leases for
	// its TTL after that, and the units are used only for half of it, so that they are never used
	// after the store has taken them back.
	renewed time.Time
}

const (
	// maxBlock bounds the units leased ahead of need on one counter: what a crash can strand.
	maxBlock = 1024
	// aheadShare: a block ahead is at most this fraction of what the store has left unleased.
	aheadShare = 8
	// fastBlock: a block used up within this doubles the next one; one that lasted four times as
	// long halves it.
	fastBlock = 250 * time.Millisecond
	// syncTimeout bounds a lease, so a call never waits longer for quota.
	syncTimeout = 5 * time.Second
	// refusalMemory is how long a refusal is remembered while other processes hold units: they
	// may give them back, but asking the store on every refused call would cost a round trip each.
	refusalMemory = 250 * time.Millisecond
)

// lease is this process's share of one counter.
type lease struct {
	m         *Leased
	free      int64 // leased units held by no call: the next calls take them without the store
	pending   int64 // units held by calls in progress
	unsettled int64 // units that became successes and are not yet reported to the store
	settling  int64 // successes reported by the store operation in flight
	returning int64 // free units given back by the store operation in flight
	count     int64 // the store's count, all processes, when last seen
	avail     int64 // units the store had neither counted nor leased when last seen; -1: unknown
	limit     int64 // the limit the counter was last leased under; 0: never leased here
	block     int64 // units to lease ahead of need
	leasedAt  time.Time
	busy      bool // a unit was reserved since the last flush
	// op is the store operation in flight for this counter. There is at most one, so what it
	// returns is never older than what the counter holds.
	op      *storeOp
	waiting int64 // calls waiting for op

	refusedUntil time.Time
	refusedLimit int64
}

// storeOp is a store operation in flight; calls that need units wait for it and look again.
type storeOp struct {
	done      chan struct{}
	err       error
	exhausted bool // the store granted fewer units than asked for
}

// errQuotaUnavailable answers a call whose quota could not be leased: the database is away.
var errQuotaUnavailable = hensachi.Errorf(hensachi.EUnavailable, "the usage store is unavailable; try again shortly").RetryIn(2 * time.Second)

// NewLeased loads today's counts, so that Used knows them before the first lease.
func NewLeased(ctx context.Context, store hensachi.QuotaStore, limits hensachi.Limits, now func() time.Time) (*Leased, error) {
	m := &Leased{store: store, limits: limits, now: now, owner: rand.Text(), counts: map[hensachi.UsageKey]*lease{}, renewed: now()}
	usage, err := store.Usage(ctx, hensachi.Day(now()), 0)
	if err != nil {
		return nil, err
	}
	for _, u := range usage {
		m.counts[u.UsageKey] = &lease{m: m, count: u.Count, avail: -1}
	}
	return m, nil
}

func (m *Leased) counter(key hensachi.UsageKey) *lease {
	l := m.counts[key]
	if l == nil {
		l = &lease{m: m, avail: -1}
		m.counts[key] = l
	}
	return l
}

func (m *Leased) Reserve(ctx context.Context, account hensachi.Account, service hensachi.Service) (*Reservation, error) {
	now := m.now()
	key := hensachi.UsageKey{AccountID: account.ID, Service: service, Day: hensachi.Day(now)}
	limit := m.limits.Daily(account.Plan, service)
	m.mu.Lock()
	l := m.counter(key)
	for {
		switch {
		case l.free > 0 && m.expired(now):
			l.free = 0 // the store may have taken these back: lease afresh
		case l.free > 0:
			l.take()
			m.mu.Unlock()
			return &Reservation{counter: l}, nil
		case l.op != nil:
			op := l.op
			l.waiting++
			m.mu.Unlock()
			select {
			case <-op.done:
			case <-ctx.Done():
				m.mu.Lock()
				l.waiting--
				m.mu.Unlock()
				return nil, hensachi.Errorf(hensachi.EUnavailable, "the call ended while waiting for quota").RetryIn(time.Second)
			}
			m.mu.Lock()
			l.waiting--
			switch {
			case l.free > 0:
			case op.err != nil:
				m.mu.Unlock()
				return nil, errQuotaUnavailable
			case op.exhausted:
				err := m.refusal(l, account, service, limit, now)
				m.mu.Unlock()
				return nil, err
			}
		case limit <= l.refusedLimit && now.Before(l.refusedUntil):
			err := m.refusal(l, account, service, limit, now)
			m.mu.Unlock()
			return nil, err
		default:
			return m.lease(ctx, key, l, account, service, limit, now)
		}
	}
}

func (l *lease) take() {
	l.free--
	l.pending++
	l.busy = true
}

// lease asks the store for the unit of this call, one for each call waiting, and a block ahead;
// it reports the successes not yet reported on the way. It is called with m.mu held and returns
// with it released.
func (m *Leased) lease(ctx context.Context, key hensachi.UsageKey, l *lease, account hensachi.Account, service hensachi.Service, limit int64, now time.Time) (*Reservation, error) {
	if !l.leasedAt.IsZero() {
		switch age := now.Sub(l.leasedAt); {
		case age < fastBlock:
			l.block = min(max(2*l.block, 1), maxBlock)
		case age > 4*fastBlock:
			l.block /= 2
		}
	}
	avail := l.avail
	if avail < 0 || l.limit != limit {
		avail = max(limit-l.count, 0) // not seen under this limit: what the count leaves at most
	}
	want := 1 + l.waiting + min(l.block, avail/aheadShare)
	op := &storeOp{done: make(chan struct{})}
	l.op = op
	used := l.unsettled
	l.settling, l.unsettled = used, 0
	m.mu.Unlock()

	// The lease serves the calls waiting for it too, so it does not end with this call's client.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), syncTimeout)
	st, err := m.store.SyncQuota(sctx, m.owner, []hensachi.QuotaSync{{UsageKey: key, Used: used, Want: want, Limit: limit}})
	cancel()

	m.mu.Lock()
	defer m.mu.Unlock()
	defer close(op.done) // before the unlock: waiters look again once they get the lock
	l.op = nil
	if err != nil {
		op.err = err
		m.failed(key, l, err)
		if now.Sub(m.loggedAt) >= time.Second { // one line a second, not one per call, while the database is away
			m.loggedAt = now
			slog.Warn("lease quota", "account", key.AccountID, "service", key.Service, "err", err)
		}
		return nil, errQuotaUnavailable
	}
	m.renewed = later(m.renewed, now)
	l.limit = limit
	l.seen(st[0])
	l.free += st[0].Granted
	l.leasedAt = now
	op.exhausted = st[0].Granted < want
	if st[0].Granted == 0 {
		l.refusedLimit, l.refusedUntil = limit, now.Add(refusalMemory)
		if l.used() >= limit {
			l.refusedUntil = hensachi.NextReset(now) // every unit is a success: nothing can come back
		}
	}
	if l.free == 0 {
		return nil, m.refusal(l, account, service, limit, now)
	}
	l.take()
	return &Reservation{counter: l}, nil
}

// refusal answers a call that found no unit. When other processes still hold units that are not
// successes yet, those may come back (calls that fail, blocks given back within two flushes, leases
// of a dead process after the TTL): a 503 with a short Retry-After; otherwise the limit is spent
// until midnight: a 429.
func (m *Leased) refusal(l *lease, account hensachi.Account, service hensachi.Service, limit int64, now time.Time) error {
	if l.used() < limit { // units are held by calls in progress, here or in another process
		return busyError(service, min(hensachi.NextReset(now).Sub(now), 2*FlushInterval))
	}
	return LimitError(account, service, limit, hensachi.NextReset(now).Sub(now))
}

// used is the day's count as this process knows it: the store's count when last seen, plus the
// successes here that it did not include.
func (l *lease) used() int64 { return l.count + l.settling + l.unsettled }

// seen takes in the state the store returned after an operation on the counter.
func (l *lease) seen(st hensachi.QuotaState) {
	l.count = st.Count
	l.settling, l.returning = 0, 0
	if l.limit > 0 {
		l.avail = max(l.limit-st.Count-st.Leased, 0)
	}
}

// failed undoes what a failed operation sent. Successes are reported again later: if the failed
// sync did commit, the count comes out high by as much, which only makes the limit stricter.
// Units given back are kept only when the store says nothing changed; otherwise they may be back
// in the store, where another process can lease them, so using them here could exceed the limit:
// they are dropped, and stay leased until this process's leases expire if the sync did not commit.
func (m *Leased) failed(key hensachi.UsageKey, l *lease, err error) {
	l.unsettled += l.settling
	if l.returning > 0 {
		if errors.Is(err, hensachi.ErrQuotaUnchanged) {
			l.free += l.returning
		} else {
			slog.Warn("units given back with an unknown outcome are not used again", "account", key.AccountID,
				"service", key.Service, "day", key.Day, "units", l.returning)
		}
	}
	l.settling, l.returning = 0, 0
}

func (l *lease) finish(r *Reservation, success bool) int64 {
	l.m.mu.Lock()
	defer l.m.mu.Unlock()
	if !r.done {
		r.done = true
		l.pending--
		if success {
			l.unsettled++
		} else {
			l.free++
		}
	}
	return l.used()
}

func (m *Leased) Used(accountID int64, service hensachi.Service) int64 {
	key := hensachi.UsageKey{AccountID: accountID, Service: service, Day: hensachi.Day(m.now())}
	m.mu.Lock()
	defer m.mu.Unlock()
	if l := m.counts[key]; l != nil {
		return l.used()
	}
	return 0
}

// flush reports the successes not yet reported and gives back the units of idle counters, of past
// days, and, when final, all of them, in one transaction. Counters with an operation in flight
// are left for the next flush.
func (m *Leased) flush(ctx context.Context, final bool) error {
	today := hensachi.Day(m.now())
	op := &storeOp{done: make(chan struct{})}
	var syncs []hensachi.QuotaSync
	var held []*lease
	holds := false // units leased here that stay after this flush
	m.mu.Lock()
	for k, l := range m.counts {
		if l.op != nil {
			holds = true
			continue
		}
		past := k.Day < today
		if l.free > 0 && (final || past || !l.busy) {
			l.returning, l.free = l.free, 0
		}
		l.busy = false
		holds = holds || l.free > 0 || l.pending > 0
		if l.unsettled == 0 && l.returning == 0 {
			if past && l.pending == 0 {
				delete(m.counts, k)
			}
			continue
		}
		l.settling, l.unsettled = l.unsettled, 0
		l.op = op
		syncs = append(syncs, hensachi.QuotaSync{UsageKey: k, Used: l.settling, Returned: l.returning})
		held = append(held, l)
	}
	m.mu.Unlock()
	if len(syncs) == 0 && !holds {
		close(op.done)
		return nil
	}
	// with nothing to report the sync still renews this process's leases: the heartbeat
	started := m.now()
	st, err := m.store.SyncQuota(ctx, m.owner, syncs)
	m.mu.Lock()
	defer m.mu.Unlock()
	defer close(op.done)
	op.err = err
	if err == nil {
		m.renewed = later(m.renewed, started)
	}
	for i, l := range held {
		l.op = nil
		if err != nil {
			m.failed(syncs[i].UsageKey, l, err)
		} else {
			l.seen(st[i])
		}
	}
	return err
}

// Run reports usage and gives back idle units every FlushInterval until ctx ends, then gives
// back everything this process holds.
func (m *Leased) Run(ctx context.Context) { runFlushes(ctx, m.flush) }

// expired reports whether the units this process holds may no longer be its own: no sync has
// renewed its leases for half their TTL.
func (m *Leased) expired(now time.Time) bool {
	return now.Sub(m.renewed) > m.store.QuotaLeaseTTL()/2
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
