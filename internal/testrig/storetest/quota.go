package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
)

// quota checks hensachi.QuotaStore on a store that implements it: the grant rules, and that no
// interleaving of concurrent leases grants more than the limit.
func quota(t *testing.T, open func(t *testing.T) hensachi.Store) {
	ctx := context.Background()
	s, ok := open(t).(hensachi.QuotaStore)
	if !ok {
		t.Skip("a single-process store: no quota leases")
	}
	_, stored := hensachi.NewAPIKey()
	a, _, err := s.CreateAccount(ctx, hensachi.Account{Email: "q@example.com", Plan: hensachi.PlanFree}, stored)
	if err != nil {
		t.Fatal(err)
	}
	town := hensachi.UsageKey{AccountID: a.ID, Service: hensachi.ServiceTown, Day: "2026-11-22"}
	face := hensachi.UsageKey{AccountID: a.ID, Service: hensachi.ServiceFace, Day: "2026-11-22"}
	sync1 := func(q hensachi.QuotaSync) hensachi.QuotaState {
		t.Helper()
		st, err := s.SyncQuota(ctx, "owner-a", []hensachi.QuotaSync{q})
		if err != nil || len(st) != 1 {
			t.Fatalf("SyncQuota(%+v) = %+v, %v", q, st, err)
		}
		return st[0]
	}
	steps := []struct {
		q    hensachi.QuotaSync
		want hensachi.QuotaState
	}{
		{hensachi.QuotaSync{UsageKey: town, Want: 4, Limit: 10}, hensachi.QuotaState{Granted: 4, Count: 0, Leased: 4}},
		{hensachi.QuotaSync{UsageKey: town, Want: 10, Limit: 10}, hensachi.QuotaState{Granted: 6, Count: 0, Leased: 10}},
		{hensachi.QuotaSync{UsageKey: town, Want: 1, Limit: 10}, hensachi.QuotaState{Granted: 0, Count: 0, Leased: 10}},
		// used units move to the count; returned ones leave the lease and can be leased again
		{hensachi.QuotaSync{UsageKey: town, Used: 3, Returned: 2}, hensachi.QuotaState{Count: 3, Leased: 5}},
		{hensachi.QuotaSync{UsageKey: town, Used: 1, Want: 5, Limit: 10}, hensachi.QuotaState{Granted: 2, Count: 4, Leased: 6}},
		// a limit lowered below the count grants nothing and takes nothing away
		{hensachi.QuotaSync{UsageKey: town, Want: 5, Limit: 3}, hensachi.QuotaState{Count: 4, Leased: 6}},
		// units returned that are not leased (a sync repeated after a commit in doubt) leave none
		{hensachi.QuotaSync{UsageKey: town, Used: 6, Returned: 1}, hensachi.QuotaState{Count: 10, Leased: 0}},
	}
	for _, st := range steps {
		if got := sync1(st.q); got != st.want {
			t.Errorf("SyncQuota(%+v) = %+v, want %+v", st.q, got, st.want)
		}
	}
	// several counters in one transaction; states come back in the order asked
	got, err := s.SyncQuota(ctx, "owner-a", []hensachi.QuotaSync{
		{UsageKey: town, Want: 1, Limit: 11},
		{UsageKey: face, Want: 3, Limit: 2},
	})
	if err != nil || len(got) != 2 || got[0] != (hensachi.QuotaState{Granted: 1, Count: 10, Leased: 1}) || got[1] != (hensachi.QuotaState{Granted: 2, Leased: 2}) {
		t.Errorf("two counters: %+v, %v", got, err)
	}
	// the count is the day's usage; AddUsage adds to the same counter
	if err := s.AddUsage(ctx, []hensachi.Usage{{UsageKey: town, Count: 5}}); err != nil {
		t.Fatal(err)
	}
	usage, err := s.Usage(ctx, town.Day, a.ID)
	if err != nil || len(usage) != 1 || usage[0].UsageKey != town || usage[0].Count != 15 {
		t.Errorf("Usage = %+v, %v; want town 15 (the face counter has no success yet)", usage, err)
	}

	// Racing processes: each leases small blocks and reports them used until the store refuses;
	// together they must be granted exactly the limit, and the counter must end fully counted.
	const limit, workers = 300, 8
	key := hensachi.UsageKey{AccountID: a.ID, Service: hensachi.ServiceTown, Day: "2026-11-23"}
	var mu sync.Mutex
	var total int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var held int64
			for {
				st, err := s.SyncQuota(ctx, fmt.Sprintf("worker-%d", w), []hensachi.QuotaSync{{UsageKey: key, Used: held, Want: int64(1 + w%5), Limit: limit}})
				if err != nil {
					t.Error(err)
					return
				}
				held = st[0].Granted
				mu.Lock()
				total += held
				mu.Unlock()
				if held == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	last := sync1(hensachi.QuotaSync{UsageKey: key})
	if total != limit || last.Count != limit || last.Leased != 0 {
		t.Errorf("racing leases granted %d in all, counter %+v; want exactly %d, all counted", total, last, limit)
	}
}

// quotaLeaseExpiry checks that the units of a process that stopped syncing go back to the pool
// after the lease TTL, while those of a process that keeps syncing (with nothing to report) stay
// its own.
func quotaLeaseExpiry(t *testing.T, open func(t *testing.T) hensachi.Store) {
	ctx := context.Background()
	s, ok := open(t).(interface {
		hensachi.QuotaStore
		SetQuotaLeaseTTL(time.Duration)
	})
	if !ok {
		t.Skip("a single-process store: no quota leases")
	}
	const ttl = time.Second
	s.SetQuotaLeaseTTL(ttl)
	_, stored := hensachi.NewAPIKey()
	a, _, err := s.CreateAccount(ctx, hensachi.Account{Email: "expiry@example.com", Plan: hensachi.PlanFree}, stored)
	if err != nil {
		t.Fatal(err)
	}
	key := hensachi.UsageKey{AccountID: a.ID, Service: hensachi.ServiceTown, Day: "2026-11-24"}
	want := func(owner string, n int64) hensachi.QuotaState {
		t.Helper()
		st, err := s.SyncQuota(ctx, owner, []hensachi.QuotaSync{{UsageKey: key, Want: n, Limit: 10}})
		if err != nil {
			t.Fatal(err)
		}
		return st[0]
	}
	if st := want("dead", 6); st.Granted != 6 {
		t.Fatalf("first lease: %+v", st)
	}
	if st := want("alive", 4); st.Granted != 4 || st.Leased != 10 {
		t.Fatalf("second lease: %+v", st)
	}
	// "alive" heartbeats through the TTL; "dead" says nothing
	deadline := time.Now().Add(ttl + 500*time.Millisecond)
	for time.Now().Before(deadline) {
		if _, err := s.SyncQuota(ctx, "alive", nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(ttl / 5)
	}
	st := want("newcomer", 10)
	if st.Granted != 6 || st.Leased != 10 {
		t.Errorf("after the dead owner's lease expired: %+v; want its 6 units granted, the live owner's 4 kept", st)
	}
}
