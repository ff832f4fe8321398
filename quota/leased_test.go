package quota

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
)

// memQuota is an in-memory hensachi.QuotaStore with the grant rules of the real ones (which
// internal/testrig/storetest checks), for testing Leased's side of the protocol: blocks, waiting calls,
// idle return, failures. The PostgreSQL store runs the whole protocol across processes in
// cmd/hensachi's replica tests.
type memQuota struct {
	hensachi.Store // nil: only the quota methods are used
	mu             sync.Mutex
	rows           map[hensachi.UsageKey]*hensachi.QuotaState
	syncs          int
	failing        int // 0: answer; 1: fail without changing anything; 2: apply, then fail (a commit in doubt)
}

func newMemQuota() *memQuota { return &memQuota{rows: map[hensachi.UsageKey]*hensachi.QuotaState{}} }

// QuotaLeaseTTL: memQuota's leases do not expire (the stores' expiry is checked by internal/testrig/storetest).
func (q *memQuota) QuotaLeaseTTL() time.Duration { return hensachi.DefaultQuotaLeaseTTL }

func (q *memQuota) SyncQuota(_ context.Context, _ string, syncs []hensachi.QuotaSync) ([]hensachi.QuotaState, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.syncs++
	if q.failing == 1 {
		return nil, fmt.Errorf("connect: %w", hensachi.ErrQuotaUnchanged)
	}
	out := make([]hensachi.QuotaState, len(syncs))
	for i, s := range syncs {
		r := q.rows[s.UsageKey]
		if r == nil {
			r = &hensachi.QuotaState{}
			q.rows[s.UsageKey] = r
		}
		r.Count += s.Used
		r.Leased = max(r.Leased-s.Used-s.Returned, 0)
		r.Granted = 0
		if s.Want > 0 {
			r.Granted = min(s.Want, max(s.Limit-r.Count-r.Leased, 0))
		}
		r.Leased += r.Granted
		out[i] = *r
	}
	if q.failing == 2 {
		return nil, errors.New("commit: connection reset")
	}
	return out, nil
}

func (q *memQuota) Usage(_ context.Context, day string, _ int64) ([]hensachi.Usage, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []hensachi.Usage
	for k, r := range q.rows {
		if k.Day == day && r.Count > 0 {
			out = append(out, hensachi.Usage{UsageKey: k, Count: r.Count})
		}
	}
	return out, nil
}

func (q *memQuota) state(k hensachi.UsageKey) hensachi.QuotaState {
	q.mu.Lock()
	defer q.mu.Unlock()
	if r := q.rows[k]; r != nil {
		return *r
	}
	return hensachi.QuotaState{}
}

func (q *memQuota) set(failing int) {
	q.mu.Lock()
	q.failing = failing
	q.mu.Unlock()
}

func (q *memQuota) syncCount() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.syncs
}

func newTestLeased(t *testing.T, q *memQuota, limits hensachi.Limits, now func() time.Time) *Leased {
	t.Helper()
	m, err := NewLeased(context.Background(), q, limits, now)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// burst makes n calls at once spread over the meters, each committing; it returns the successes
// and checks that every failure is a 429, or a 503 while units are held elsewhere.
func burst(t *testing.T, meters []*Leased, acct hensachi.Account, n int) (ok int64, used []int64) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var okN atomic.Int64
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			res, err := meters[i%len(meters)].Reserve(context.Background(), acct, hensachi.ServiceTown)
			if err != nil {
				if code := hensachi.ErrorCode(err); code != hensachi.EDailyLimitExceeded && code != hensachi.EOverloaded {
					t.Errorf("call %d: %v", i, err)
				}
				return
			}
			u := res.Commit()
			okN.Add(1)
			mu.Lock()
			used = append(used, u)
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	return okN.Load(), used
}

// TestLeaseExactAcrossProcesses: two processes on one store, many more calls than the limit at
// once: never more than the limit succeed, the units a process holds idle go back at its flushes,
// and then exactly the limit has succeeded; every used_today is within the limit.
func TestLeaseExactAcrossProcesses(t *testing.T) {
	q := newMemQuota()
	limits := hensachi.DefaultLimits()
	meters := []*Leased{newTestLeased(t, q, limits, time.Now), newTestLeased(t, q, limits, time.Now)}
	acct := hensachi.Account{ID: 7, Plan: hensachi.PlanFree}
	const limit = 100
	first, used := burst(t, meters, acct, 400)
	if first > limit || first == 0 {
		t.Fatalf("%d calls succeeded in the first burst, limit %d", first, limit)
	}
	// two flushes: the first sees the counters busy, the second gives back what stayed idle
	for range 2 {
		for _, m := range meters {
			if err := m.flush(context.Background(), false); err != nil {
				t.Fatal(err)
			}
		}
	}
	second, used2 := burst(t, meters, acct, 200)
	t.Logf("first burst %d, second %d, syncs %d", first, second, q.syncCount())
	if first+second != limit {
		t.Errorf("%d + %d calls succeeded, want exactly %d", first, second, limit)
	}
	for _, u := range append(used, used2...) {
		if u < 1 || u > limit {
			t.Errorf("used_today %d outside 1..%d", u, limit)
		}
	}
	for _, m := range meters {
		if err := m.flush(context.Background(), true); err != nil {
			t.Fatal(err)
		}
	}
	key := hensachi.UsageKey{AccountID: acct.ID, Service: hensachi.ServiceTown, Day: hensachi.Day(time.Now())}
	if st := q.state(key); st.Count != limit || st.Leased != 0 {
		t.Errorf("store after the final flushes: %+v, want count %d, nothing leased", st, limit)
	}
}

// TestLeaseBlocksSaveRoundTrips: under a steady stream of calls on a high limit, blocks grow, so
// the store sees a small fraction of a sync per call, and every unit is accounted for.
func TestLeaseBlocksSaveRoundTrips(t *testing.T) {
	q := newMemQuota()
	limits := hensachi.Limits{hensachi.PlanPro: {hensachi.ServiceTown: 1_000_000}}
	meters := []*Leased{newTestLeased(t, q, limits, time.Now), newTestLeased(t, q, limits, time.Now)}
	acct := hensachi.Account{ID: 8, Plan: hensachi.PlanPro}
	const calls = 20000
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for range calls / 8 {
				res, err := meters[w%2].Reserve(context.Background(), acct, hensachi.ServiceTown)
				if err != nil {
					t.Error(err)
					return
				}
				res.Commit()
			}
		})
	}
	wg.Wait()
	t.Logf("%d syncs for %d calls", q.syncCount(), calls)
	if n := q.syncCount(); n > calls/20 {
		t.Errorf("%d store syncs for %d calls; blocks should make it far fewer", n, calls)
	}
	for _, m := range meters {
		m.flush(context.Background(), true)
	}
	key := hensachi.UsageKey{AccountID: acct.ID, Service: hensachi.ServiceTown, Day: hensachi.Day(time.Now())}
	if st := q.state(key); st.Count != calls || st.Leased != 0 {
		t.Errorf("store after the final flushes: %+v, want count %d, nothing leased", st, calls)
	}
}

// TestLeaseRefusals: while another process holds units that may come back the call is a 503 with a
// short Retry-After; once every unit is a success it is a 429 with Retry-After to midnight; a refused call does not ask the store again
// at once.
func TestLeaseRefusals(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, hensachi.Tokyo)
	clock := func() time.Time { return now }
	q := newMemQuota()
	limits := hensachi.Limits{hensachi.PlanFree: {hensachi.ServiceTown: 3}}
	a, b := newTestLeased(t, q, limits, clock), newTestLeased(t, q, limits, clock)
	acct := hensachi.Account{ID: 9, Plan: hensachi.PlanFree}
	reserve := func(m *Leased) (*Reservation, error) {
		return m.Reserve(context.Background(), acct, hensachi.ServiceTown)
	}
	var held []*Reservation
	for range 3 {
		res, err := reserve(a)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, res)
	}
	_, err := reserve(b)
	var re *hensachi.Error
	if hensachi.ErrorCode(err) != hensachi.EOverloaded || !errors.As(err, &re) || re.RetryAfter != 2*FlushInterval {
		t.Fatalf("while the other process holds units in calls: %v (want 503 overloaded, not 429)", err)
	}
	syncs := q.syncCount()
	if _, err := reserve(b); hensachi.ErrorCode(err) != hensachi.EOverloaded || q.syncCount() != syncs {
		t.Errorf("a second refusal at once: %v, %d store syncs (want none)", err, q.syncCount()-syncs)
	}
	held[0].Release() // a failed call: its unit can serve another call
	for _, r := range held[1:] {
		r.Commit()
	}
	if err := a.flush(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if err := a.flush(context.Background(), false); err != nil { // idle now: the unit goes back
		t.Fatal(err)
	}
	now = now.Add(refusalMemory)
	res, err := reserve(b)
	if err != nil {
		t.Fatalf("the unit given back: %v", err)
	}
	if used := res.Commit(); used != 3 {
		t.Errorf("used_today %d on the last unit, want 3", used)
	}
	_, err = reserve(b)
	midnight := hensachi.NextReset(now).Sub(now)
	if hensachi.ErrorCode(err) != hensachi.EDailyLimitExceeded || !errors.As(err, &re) || re.RetryAfter != midnight {
		t.Errorf("with every unit a success: %v (Retry-After %v, want 429 and %v)", err, re.RetryAfter, midnight)
	}
	// a plan with a higher limit asks the store again at once
	pro := hensachi.Account{ID: 9, Plan: hensachi.PlanPro}
	b.limits = hensachi.Limits{hensachi.PlanPro: {hensachi.ServiceTown: 4}, hensachi.PlanFree: {hensachi.ServiceTown: 3}}
	if _, err := b.Reserve(context.Background(), pro, hensachi.ServiceTown); err != nil {
		t.Errorf("after an upgrade: %v", err)
	}
}

// TestLeaseStoreAway: while the store fails, units held keep serving calls, a call that needs the
// store is a 503 with Retry-After, and successes are reported once it answers again. Units given
// back by a sync whose commit is in doubt are never used again.
func TestLeaseStoreAway(t *testing.T) {
	q := newMemQuota()
	limits := hensachi.Limits{hensachi.PlanPro: {hensachi.ServiceTown: 1000}}
	m := newTestLeased(t, q, limits, time.Now)
	acct := hensachi.Account{ID: 10, Plan: hensachi.PlanPro}
	key := hensachi.UsageKey{AccountID: acct.ID, Service: hensachi.ServiceTown, Day: hensachi.Day(time.Now())}
	call := func() error {
		res, err := m.Reserve(context.Background(), acct, hensachi.ServiceTown)
		if err == nil {
			res.Commit()
		}
		return err
	}
	for call() == nil && m.counts[key].free == 0 { // until a block is held
	}
	held := m.counts[key].free
	q.set(1)
	for i := range held {
		if err := call(); err != nil {
			t.Fatalf("call %d from the held block with the store away: %v", i, err)
		}
	}
	err := call()
	var re *hensachi.Error
	if hensachi.ErrorCode(err) != hensachi.EUnavailable || !errors.As(err, &re) || re.RetryAfter <= 0 {
		t.Fatalf("a call that needs the store while it is away: %v", err)
	}
	if err := m.flush(context.Background(), false); err == nil {
		t.Fatal("flush to a failing store succeeded")
	}
	used := m.Used(acct.ID, hensachi.ServiceTown)
	q.set(0)
	if err := m.flush(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if st := q.state(key); st.Count != used {
		t.Errorf("store count %d after the store's return, want %d", st.Count, used)
	}

	// a block given back in a sync that applied but reported failure: the units are gone here,
	// and the store keeps none of them leased twice
	if err := call(); err != nil {
		t.Fatal(err)
	}
	for m.counts[key].free == 0 {
		if err := call(); err != nil {
			t.Fatal(err)
		}
	}
	m.flush(context.Background(), false) // busy: reports the successes only
	q.set(2)
	if err := m.flush(context.Background(), false); err == nil {
		t.Fatal("a flush in doubt succeeded")
	}
	q.set(0)
	if free := m.counts[key].free; free != 0 {
		t.Errorf("%d units given back in doubt are still used here", free)
	}
	m.flush(context.Background(), true)
	if st := q.state(key); st.Leased != 0 || st.Count < m.Used(acct.ID, hensachi.ServiceTown) {
		t.Errorf("store %+v after the doubtful sync and a final flush; Used %d", st, m.Used(acct.ID, hensachi.ServiceTown))
	}
}

// TestLeaseDayChange: at midnight calls count on the new day, and the units of the old day go back.
func TestLeaseDayChange(t *testing.T) {
	now := time.Date(2026, 11, 22, 23, 59, 59, 0, hensachi.Tokyo)
	clock := func() time.Time { return now }
	q := newMemQuota()
	limits := hensachi.Limits{hensachi.PlanFree: {hensachi.ServiceTown: 50}}
	m := newTestLeased(t, q, limits, clock)
	acct := hensachi.Account{ID: 11, Plan: hensachi.PlanFree}
	for range 10 { // fast calls: a block ahead
		res, err := m.Reserve(context.Background(), acct, hensachi.ServiceTown)
		if err != nil {
			t.Fatal(err)
		}
		res.Commit()
	}
	old := hensachi.UsageKey{AccountID: acct.ID, Service: hensachi.ServiceTown, Day: "2026-11-22"}
	if m.counts[old].free == 0 {
		t.Fatal("no block ahead after ten quick calls")
	}
	now = now.Add(2 * time.Second)
	res, err := m.Reserve(context.Background(), acct, hensachi.ServiceTown)
	if err != nil {
		t.Fatal(err)
	}
	if used := res.Commit(); used != 1 {
		t.Errorf("first call of the new day: used_today %d", used)
	}
	if err := m.flush(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if st := q.state(old); st.Count != 10 || st.Leased != 0 {
		t.Errorf("the old day in the store: %+v, want 10 counted, nothing leased", st)
	}
	m.flush(context.Background(), false)
	if _, ok := m.counts[old]; ok {
		t.Error("the old day's counter is still held")
	}
}

// TestLeasedStopsUsingStaleUnits: a process whose leases were not renewed for half their TTL (the
// store away, say) does not hand out the units it holds, since the store may have taken them back;
// it leases afresh.
func TestLeasedStopsUsingStaleUnits(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, hensachi.Tokyo)
	q := newMemQuota()
	m := newTestLeased(t, q, hensachi.DefaultLimits(), func() time.Time { return now })
	acct := hensachi.Account{ID: 3, Plan: hensachi.PlanPro}
	for range 40 { // enough calls in quick succession to lease a block ahead
		res, err := m.Reserve(context.Background(), acct, hensachi.ServiceTown)
		if err != nil {
			t.Fatal(err)
		}
		res.Commit()
	}
	key := hensachi.UsageKey{AccountID: 3, Service: hensachi.ServiceTown, Day: hensachi.Day(now)}
	if m.counts[key].free == 0 {
		t.Fatal("no block leased ahead")
	}
	syncs := q.syncCount()
	if _, err := m.Reserve(context.Background(), acct, hensachi.ServiceTown); err != nil || q.syncCount() != syncs {
		t.Fatalf("a fresh unit: %v, %d syncs (want none)", err, q.syncCount()-syncs)
	}
	now = now.Add(hensachi.DefaultQuotaLeaseTTL/2 + time.Second)
	if _, err := m.Reserve(context.Background(), acct, hensachi.ServiceTown); err != nil || q.syncCount() != syncs+1 {
		t.Errorf("after half a TTL without a renewal: %v, %d syncs (want a new lease)", err, q.syncCount()-syncs)
	}
}
