package hensachi

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Plan is an account's subscription; the content served is the same, only daily limits differ.
type Plan string

const (
	PlanFree Plan = "free"
	PlanPro  Plan = "pro"
)

// Valid reports whether p is a known plan.
func (p Plan) Valid() bool { return p == PlanFree || p == PlanPro }

// Label is the plan's name on the Japanese pages; the API's usage member keeps the identifier.
func (p Plan) Label() string {
	switch p {
	case PlanFree:
		return "無料プラン"
	case PlanPro:
		return "プロプラン"
	}
	return string(p)
}

// Service is one of the two APIs; usage is counted per account and service.
type Service string

const (
	ServiceFace Service = "face"
	ServiceTown Service = "town"
)

// Services lists every service.
var Services = []Service{ServiceFace, ServiceTown}

// Limits gives the successful calls a plan allows per day on each service.
type Limits map[Plan]map[Service]int64

// DefaultLimits are the daily limits of each plan on each service unless the operator sets others
// (ParseLimits).
func DefaultLimits() Limits {
	return Limits{
		PlanFree: {ServiceFace: 20, ServiceTown: 100},
		PlanPro:  {ServiceFace: 1000, ServiceTown: 10000},
	}
}

// Daily returns the limit of a plan on a service.
func (l Limits) Daily(p Plan, s Service) int64 { return l[p][s] }

// ParseLimits overrides defaults from a list such as "town.pro=20000,face.free=10".
func ParseLimits(spec string, base Limits) (Limits, error) {
	out := Limits{}
	for p, m := range base {
		out[p] = maps.Clone(m)
	}
	if spec == "" {
		return out, nil
	}
	for _, item := range strings.Split(spec, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		svc, plan, ok2 := strings.Cut(name, ".")
		n, err := strconv.ParseInt(value, 10, 64)
		if !ok || !ok2 || err != nil || n < 0 || !Plan(plan).Valid() || !slices.Contains(Services, Service(svc)) {
			return nil, fmt.Errorf("limit %q: want service.plan=calls, e.g. town.pro=20000", item)
		}
		out[Plan(plan)][Service(svc)] = n
	}
	return out, nil
}

// Tokyo is the zone in which the daily count restarts at midnight; Japan has no daylight saving.
var Tokyo = time.FixedZone("Asia/Tokyo", 9*60*60)

// Day returns the usage day of t, YYYY-MM-DD in Tokyo. Every keyed call asks for it, so the
// current day's window is cached rather than formatted each time.
func Day(t time.Time) string { return window(t).day }

// NextReset returns the start of the usage day after t's. Every keyed call's RateLimit field
// counts down to it, from the same cached window as Day.
func NextReset(t time.Time) time.Time { return window(t).next }

// dayWindow is one Tokyo day as [start, end) in Unix nanoseconds, the next day's start as a time.
type dayWindow struct {
	start, end int64
	day        string
	next       time.Time
}

var today atomic.Pointer[dayWindow]

// window returns the usage day of t, the current one from the cache.
func window(t time.Time) *dayWindow {
	n := t.UnixNano()
	if w := today.Load(); w != nil && n >= w.start && n < w.end {
		return w
	}
	y, m, d := t.In(Tokyo).Date()
	start := time.Date(y, m, d, 0, 0, 0, 0, Tokyo)
	next := start.AddDate(0, 0, 1)
	w := &dayWindow{start: start.UnixNano(), end: next.UnixNano(), day: start.Format(time.DateOnly), next: next}
	today.Store(w)
	return w
}

// Account is a user of the APIs.
type Account struct {
	ID              int64
	Email           string
	Plan            Plan
	CreatedAt       time.Time
	TermsVersion    string // the version of the terms accepted, empty for accounts made by an operator
	TermsAcceptedAt time.Time
	// Origins is the allow-list of web origins whose pages may call the APIs with the account's
	// keys (CORS), in ParseOrigins' form; empty allows any origin.
	Origins []string
}

// APIKey is the stored form of a key: its hash, never the key itself.
type APIKey struct {
	ID        int64
	AccountID int64
	Hash      [32]byte
	Hint      string // the last characters, for display
	CreatedAt time.Time
	RevokedAt time.Time // zero while the key is active
}

// Revoked reports whether the key has been revoked.
func (k APIKey) Revoked() bool { return !k.RevokedAt.IsZero() }

// UsageKey identifies one daily counter.
type UsageKey struct {
	AccountID int64
	Service   Service
	Day       string
}

// Usage is one daily counter with its value.
type Usage struct {
	UsageKey
	Count int64
}

// Store keeps accounts, keys and usage counts. The embedded SQLite store and the PostgreSQL
// store both implement it.
type Store interface {
	// CreateAccount creates an account with its first key; an existing e-mail is EConflict.
	CreateAccount(ctx context.Context, a Account, key APIKey) (Account, APIKey, error)
	Account(ctx context.Context, id int64) (Account, error)
	AccountByEmail(ctx context.Context, email string) (Account, error)
	Accounts(ctx context.Context) ([]Account, error)
	SetPlan(ctx context.Context, accountID int64, plan Plan) error
	// AcceptTerms records that the account accepted a version of the terms at a time; logging in
	// counts as acceptance, so each login with a newer version records it. An unknown
	// account is ENotFound.
	AcceptTerms(ctx context.Context, accountID int64, version string, at time.Time) error
	// SetOrigins replaces the account's origin allow-list (already checked by ParseOrigins); an
	// empty list clears it. An unknown account is ENotFound.
	SetOrigins(ctx context.Context, accountID int64, origins []string) error
	// RotateKey revokes the account's active keys and stores a new one, atomically.
	RotateKey(ctx context.Context, accountID int64, key APIKey) (APIKey, error)
	// RevokeKeys revokes the account's active keys and returns how many there were.
	RevokeKeys(ctx context.Context, accountID int64) (int, error)
	Keys(ctx context.Context, accountID int64) ([]APIKey, error)
	// KeyByHash finds a key, active or revoked, with its account; an unknown hash is ENotFound.
	KeyByHash(ctx context.Context, hash [32]byte) (APIKey, Account, error)
	// AddUsage adds deltas to daily counters in one transaction.
	AddUsage(ctx context.Context, deltas []Usage) error
	// Usage returns the counters of a day, all accounts when accountID is 0.
	Usage(ctx context.Context, day string, accountID int64) ([]Usage, error)
	Ping(ctx context.Context) error
	Close() error
}
