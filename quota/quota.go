// Package quota enforces the daily call limits of the plans, exactly: a call first reserves one
// unit of its account's quota, and the reservation becomes a count only when the call succeeds.
// Reserved-but-unfinished calls hold their unit, so however many calls run at once, no more than
// the limit can succeed.
//
// Local does this for one process, with the counts in memory; Leased does it for several
// processes that share a database (a hensachi.QuotaStore), each holding a leased share of a
// counter's quota.
package quota

import (
	"context"
	"log/slog"
	"time"

	"github.com/hensachi/hensachi"
)

// Enforcer is the daily quota of every account and service, as one process enforces it.
type Enforcer interface {
	// Reserve holds one unit of the account's quota on the service for a call. It fails with
	// EDailyLimitExceeded (429) when no unit is left, and with EUnavailable (503) when the units
	// live in a database that cannot be reached.
	Reserve(ctx context.Context, account hensachi.Account, service hensachi.Service) (*Reservation, error)
	// Used returns the day's count for an account and service as this process knows it.
	Used(accountID int64, service hensachi.Service) int64
	// Run writes counts to the store until ctx ends, then once more.
	Run(ctx context.Context)
}

// New picks the enforcer a store needs: leases when several processes may share it.
func New(ctx context.Context, store hensachi.Store, limits hensachi.Limits, now func() time.Time) (Enforcer, error) {
	if qs, ok := store.(hensachi.QuotaStore); ok {
		return NewLeased(ctx, qs, limits, now)
	}
	return NewLocal(ctx, store, limits, now)
}

// Reservation is one unit of quota held by a call in progress.
type Reservation struct {
	// counter is the one the unit came from, held rather than looked up again when the call ends:
	// a counter is not dropped while a call holds one of its units.
	counter interface {
		// finish ends the reservation once, as a success or not, and returns the day's count.
		finish(r *Reservation, success bool) int64
	}
	done bool // guarded by the lock of the counter's owner
}

// Commit turns the reservation into a counted call and returns the day's count including it.
func (r *Reservation) Commit() int64 { return r.counter.finish(r, true) }

// Release gives the unit back: the call failed and does not count. Releasing a committed
// reservation does nothing, so it can be deferred.
func (r *Reservation) Release() { r.counter.finish(r, false) }

// LimitError refuses a call at the limit; after is the Retry-After. Reserve returns it, and a
// server refusing a call that reserves nothing (a HEAD) at the limit.
func LimitError(account hensachi.Account, service hensachi.Service, limit int64, after time.Duration) error {
	return hensachi.Errorf(hensachi.EDailyLimitExceeded, "the daily limit of %d %s calls for the %s plan is reached; it resets at 00:00 Asia/Tokyo", limit, service, account.Plan).RetryIn(after)
}

// FlushInterval is how often counts are written to the store, and so about how many seconds of
// counts a crash can lose.
const FlushInterval = time.Second

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

// busyError refuses a call while the units left today are held by calls in progress, here or in
// another process: those calls may yet fail and give their units back, so the limit is not
// reached and the client should try again shortly (503), not wait for midnight (429).
func busyError(service hensachi.Service, after time.Duration) error {
	return hensachi.Errorf(hensachi.EOverloaded, "the remaining %s calls of today's limit are in progress; try again shortly", service).RetryIn(after)
}
