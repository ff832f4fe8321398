// Package postgres is the store for several server processes sharing one PostgreSQL database
// (pgx with its pool): the accounts, keys and usage counts of the embedded store, with the same
// migrations in PostgreSQL's dialect, plus quota leases (hensachi.QuotaStore) that keep every daily
// limit exact across processes.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hensachi/hensachi"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DefaultTimeout bounds every store call: a database that stops answering (a dropped network
// rather than a refused connection) turns into an error after this long instead of a request that
// hangs.
const DefaultTimeout = 5 * time.Second

// Store is a hensachi.QuotaStore on PostgreSQL.
type Store struct {
	pool     *pgxpool.Pool
	leaseTTL time.Duration
	timeout  time.Duration
	now      func() time.Time
	where    string // host:port/database, for messages; never the password
}

var _ hensachi.QuotaStore = (*Store)(nil)

// Open connects to the database a DSN names — postgres://user:password@host:port/database?… or
// the key=value form, with libpq's parameters and pgxpool's (pool_max_conns, …) — and applies the
// pending migrations. The pool connects lazily and reconnects by itself, so a store opened while
// the database is up survives it going away and coming back.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err) // pgconn's parse errors never echo the password
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = DefaultTimeout
	}
	where := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", where, err)
	}
	s := &Store{pool: pool, leaseTTL: hensachi.DefaultQuotaLeaseTTL, timeout: DefaultTimeout, now: time.Now, where: where}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("migrate %s: %w", where, err)
	}
	return s, nil
}

// String names the database without credentials.
func (s *Store) String() string { return "postgres " + s.where }

// migrationLock is the advisory lock that serialises migrations, so that replicas starting
// together do not race to apply the same version.
const migrationLock = 0x68656e7361636869 // "hensachi"

// migrate applies, in version order, each embedded migration not yet recorded, each in its own
// transaction, under a session advisory lock held on one connection.
func (s *Store) migrate(ctx context.Context) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return s.fail("connect", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrationLock)); err != nil {
		return s.fail("lock migrations", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(migrationLock))
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)`); err != nil {
		return err
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	for _, name := range names {
		version := strings.TrimSuffix(path.Base(name), ".sql")
		body, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		if err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			var done bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, version).Scan(&done); err != nil || done {
				return err
			}
			if _, err := tx.Exec(ctx, string(body)); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)`, version, s.timestamp())
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// Close closes the pool's connections.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	return s.fail("ping", s.pool.Ping(ctx))
}

// bound applies the store's timeout to one call.
func (s *Store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// timestamp is now at PostgreSQL's precision, so that what a call returns equals what it stored.
func (s *Store) timestamp() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

func (s *Store) CreateAccount(ctx context.Context, a hensachi.Account, key hensachi.APIKey) (hensachi.Account, hensachi.APIKey, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	now := s.timestamp()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO accounts (email, plan, created_at, terms_version, terms_accepted_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (email) DO NOTHING RETURNING id`,
			a.Email, string(a.Plan), now, a.TermsVersion, nullTime(a.TermsAcceptedAt)).Scan(&a.ID)
		if errors.Is(err, pgx.ErrNoRows) {
			return hensachi.Errorf(hensachi.EConflict, "an account with e-mail %s exists", a.Email)
		}
		if err != nil {
			return err
		}
		key.AccountID = a.ID
		key, err = insertKey(ctx, tx, key, now)
		return err
	})
	if err != nil {
		return hensachi.Account{}, hensachi.APIKey{}, s.fail("create account", err)
	}
	a.CreatedAt = now
	return a, key, nil
}

func insertKey(ctx context.Context, tx pgx.Tx, key hensachi.APIKey, now time.Time) (hensachi.APIKey, error) {
	key.CreatedAt = now
	err := tx.QueryRow(ctx, `INSERT INTO api_keys (account_id, hash, hint, created_at) VALUES ($1, $2, $3, $4) RETURNING id`,
		key.AccountID, key.Hash[:], key.Hint, now).Scan(&key.ID)
	return key, err
}

// nullTime stores the zero time as NULL, as the embedded store does.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func utc(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

const accountColumns = `id, email, plan, created_at, terms_version, terms_accepted_at, origins`

func scanAccount(row pgx.Row) (hensachi.Account, error) {
	var a hensachi.Account
	var plan string
	var created time.Time
	var terms *time.Time
	if err := row.Scan(&a.ID, &a.Email, &plan, &created, &a.TermsVersion, &terms, &a.Origins); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return a, hensachi.Errorf(hensachi.ENotFound, "no such account")
		}
		return a, err
	}
	a.Plan, a.CreatedAt, a.TermsAcceptedAt, a.Origins = hensachi.Plan(plan), created.UTC(), utc(terms), noOrigins(a.Origins)
	return a, nil
}

func (s *Store) Account(ctx context.Context, id int64) (hensachi.Account, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	a, err := scanAccount(s.pool.QueryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`, id))
	return a, s.fail("account", err)
}

func (s *Store) AccountByEmail(ctx context.Context, email string) (hensachi.Account, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	a, err := scanAccount(s.pool.QueryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE email = $1`, email))
	return a, s.fail("account by e-mail", err)
}

func (s *Store) Accounts(ctx context.Context) ([]hensachi.Account, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT `+accountColumns+` FROM accounts ORDER BY id`)
	if err != nil {
		return nil, s.fail("accounts", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (hensachi.Account, error) { return scanAccount(row) })
	return out, s.fail("accounts", err)
}

func (s *Store) SetPlan(ctx context.Context, accountID int64, plan hensachi.Plan) error {
	if !plan.Valid() {
		return hensachi.Errorf(hensachi.EInvalidParameter, "unknown plan %q (free or pro)", plan)
	}
	return s.updateAccount(ctx, "set plan", accountID, `UPDATE accounts SET plan = $2 WHERE id = $1`, string(plan))
}

func (s *Store) AcceptTerms(ctx context.Context, accountID int64, version string, at time.Time) error {
	return s.updateAccount(ctx, "accept terms", accountID,
		`UPDATE accounts SET terms_version = $2, terms_accepted_at = $3 WHERE id = $1`, version, at)
}

func (s *Store) SetOrigins(ctx context.Context, accountID int64, origins []string) error {
	return s.updateAccount(ctx, "set origins", accountID, `UPDATE accounts SET origins = $2 WHERE id = $1`,
		append([]string{}, origins...)) // never nil, which pgx sends as NULL
}

// noOrigins reads an empty array as no list, as the embedded store does.
func noOrigins(o []string) []string {
	if len(o) == 0 {
		return nil
	}
	return o
}

// updateAccount runs an UPDATE of one account whose first parameter is the account's id.
func (s *Store) updateAccount(ctx context.Context, op string, accountID int64, sql string, args ...any) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	tag, err := s.pool.Exec(ctx, sql, append([]any{accountID}, args...)...)
	if err != nil {
		return s.fail(op, err)
	}
	if tag.RowsAffected() == 0 {
		return hensachi.Errorf(hensachi.ENotFound, "no account %d", accountID)
	}
	return nil
}

func (s *Store) RotateKey(ctx context.Context, accountID int64, key hensachi.APIKey) (hensachi.APIKey, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	now := s.timestamp()
	key.AccountID = accountID
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// locking the account serialises two rotations, so exactly one key stays active
		var id int64
		err := tx.QueryRow(ctx, `SELECT id FROM accounts WHERE id = $1 FOR UPDATE`, accountID).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return hensachi.Errorf(hensachi.ENotFound, "no account %d", accountID)
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL`, accountID, now); err != nil {
			return err
		}
		key, err = insertKey(ctx, tx, key, now)
		return err
	})
	return key, s.fail("rotate key", err)
}

func (s *Store) RevokeKeys(ctx context.Context, accountID int64) (int, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL`, accountID, s.timestamp())
	if err != nil {
		return 0, s.fail("revoke keys", err)
	}
	return int(tag.RowsAffected()), nil
}

const keyColumns = `k.id, k.account_id, k.hash, k.hint, k.created_at, k.revoked_at`

func scanKey(row pgx.Row, more ...any) (hensachi.APIKey, error) {
	var k hensachi.APIKey
	var hash []byte
	var revoked *time.Time
	if err := row.Scan(append([]any{&k.ID, &k.AccountID, &hash, &k.Hint, &k.CreatedAt, &revoked}, more...)...); err != nil {
		return k, err
	}
	copy(k.Hash[:], hash)
	k.CreatedAt, k.RevokedAt = k.CreatedAt.UTC(), utc(revoked)
	return k, nil
}

func (s *Store) Keys(ctx context.Context, accountID int64) ([]hensachi.APIKey, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT `+keyColumns+` FROM api_keys k WHERE k.account_id = $1 ORDER BY k.id`, accountID)
	if err != nil {
		return nil, s.fail("keys", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (hensachi.APIKey, error) { return scanKey(row) })
	return out, s.fail("keys", err)
}

func (s *Store) KeyByHash(ctx context.Context, hash [32]byte) (hensachi.APIKey, hensachi.Account, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var a hensachi.Account
	var plan string
	var terms *time.Time
	k, err := scanKey(s.pool.QueryRow(ctx, `SELECT `+keyColumns+`, a.email, a.plan, a.created_at, a.terms_version, a.terms_accepted_at, a.origins
		FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1`, hash[:]),
		&a.Email, &plan, &a.CreatedAt, &a.TermsVersion, &terms, &a.Origins)
	if errors.Is(err, pgx.ErrNoRows) {
		return k, a, hensachi.Errorf(hensachi.ENotFound, "no such key")
	}
	if err != nil {
		return k, a, s.fail("key by hash", err)
	}
	a.ID, a.Plan, a.CreatedAt, a.TermsAcceptedAt, a.Origins = k.AccountID, hensachi.Plan(plan), a.CreatedAt.UTC(), utc(terms), noOrigins(a.Origins)
	return k, a, nil
}

func (s *Store) AddUsage(ctx context.Context, deltas []hensachi.Usage) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for _, d := range sortedUsage(deltas) {
			b.Queue(`INSERT INTO usage (account_id, service, day, count) VALUES ($1, $2, $3, $4)
				ON CONFLICT (account_id, service, day) DO UPDATE SET count = usage.count + excluded.count`,
				d.AccountID, string(d.Service), d.Day, d.Count)
		}
		return tx.SendBatch(ctx, b).Close()
	})
	return s.fail("add usage", err)
}

// Usage leaves out counters that have units leased but no success yet.
func (s *Store) Usage(ctx context.Context, day string, accountID int64) ([]hensachi.Usage, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT account_id, service, day, count FROM usage
		WHERE day = $1 AND ($2 = 0 OR account_id = $2) AND count > 0 ORDER BY account_id, service`, day, accountID)
	if err != nil {
		return nil, s.fail("usage", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (hensachi.Usage, error) {
		var u hensachi.Usage
		var svc string
		err := row.Scan(&u.AccountID, &svc, &u.Day, &u.Count)
		u.Service = hensachi.Service(svc)
		return u, err
	})
	return out, s.fail("usage", err)
}

// sortedUsage orders deltas by counter, so that two transactions touching the same counters lock
// them in the same order and cannot deadlock.
func sortedUsage(deltas []hensachi.Usage) []hensachi.Usage {
	out := slices.Clone(deltas)
	slices.SortFunc(out, func(a, b hensachi.Usage) int { return compareKeys(a.UsageKey, b.UsageKey) })
	return out
}

func compareKeys(a, b hensachi.UsageKey) int {
	if c := strings.Compare(a.Day, b.Day); c != 0 {
		return c
	}
	if a.AccountID != b.AccountID {
		return int(min(max(a.AccountID-b.AccountID, -1), 1))
	}
	return strings.Compare(string(a.Service), string(b.Service))
}

// SetQuotaLeaseTTL sets how long a quota lease lives after its owner's last sync (default
// hensachi.DefaultQuotaLeaseTTL); every process sharing the database must use the same.
func (s *Store) SetQuotaLeaseTTL(ttl time.Duration) { s.leaseTTL = ttl }

// QuotaLeaseTTL is how long a quota lease lives after its owner's last sync.
func (s *Store) QuotaLeaseTTL() time.Duration { return s.leaseTTL }

// SyncQuota applies each sync under a row lock on its counter, in one transaction: the counter's
// expired leases go back to the pool, the units used move from the owner's lease to the count, the
// units returned leave it, and then up to Want units are leased to the owner, never more than the
// limit minus count minus leased. Every lease of the owner is renewed. A failure before the commit
// was sent changed nothing and wraps hensachi.ErrQuotaUnchanged; a failure of the commit itself has
// an unknown outcome (the connection can break after the server committed).
func (s *Store) SyncQuota(ctx context.Context, owner string, syncs []hensachi.QuotaSync) ([]hensachi.QuotaState, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	order := make([]int, len(syncs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return compareKeys(syncs[i].UsageKey, syncs[j].UsageKey) })

	// The renewal stands alone, before the transaction: it holds the owner's row only for itself,
	// so syncs of one owner on different counters never wait on each other through it.
	if _, err := s.pool.Exec(ctx, `INSERT INTO quota_owner (owner, expires_at) VALUES ($1, now() + make_interval(secs => $2))
		ON CONFLICT (owner) DO UPDATE SET expires_at = EXCLUDED.expires_at`, owner, s.leaseTTL.Seconds()); err != nil {
		return nil, s.fail("sync quota: renew leases", fmt.Errorf("%w: %w", hensachi.ErrQuotaUnchanged, err))
	}
	if len(syncs) == 0 {
		return nil, nil
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, s.fail("sync quota", fmt.Errorf("%w: %w", hensachi.ErrQuotaUnchanged, err))
	}
	out, err := syncLocked(ctx, tx, owner, syncs, order)
	if err != nil {
		tx.Rollback(context.WithoutCancel(ctx))
		return nil, s.fail("sync quota", fmt.Errorf("%w: %w", hensachi.ErrQuotaUnchanged, err))
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, s.fail("sync quota: commit", err)
	}
	return out, nil
}

// syncLocked runs the syncs in tx. A counter's lease rows change only under the lock of its usage
// row. An owner found expired is locked while its leases are taken back, so an owner renewing at
// that moment either comes first (and is not expired) or finds its leases gone.
func syncLocked(ctx context.Context, tx pgx.Tx, owner string, syncs []hensachi.QuotaSync, order []int) ([]hensachi.QuotaState, error) {
	// one round trip locks every counter (creating the missing ones), takes back its expired
	// leases and reads it with the owner's lease …
	b := &pgx.Batch{}
	cur := make([]struct{ count, leased, reclaimed, own int64 }, len(syncs))
	for _, i := range order {
		q := syncs[i]
		if q.Used < 0 || q.Returned < 0 || q.Want < 0 {
			return nil, fmt.Errorf("negative units in %+v", q)
		}
		key := []any{q.AccountID, string(q.Service), q.Day}
		b.Queue(`INSERT INTO usage (account_id, service, day, count) VALUES ($1, $2, $3, 0) ON CONFLICT DO NOTHING`, key...)
		b.Queue(`SELECT count, leased FROM usage WHERE account_id = $1 AND service = $2 AND day = $3 FOR UPDATE`,
			key...).QueryRow(func(row pgx.Row) error { return row.Scan(&cur[i].count, &cur[i].leased) })
		b.Queue(`WITH dead AS (
				SELECT o.owner FROM quota_owner o JOIN quota_lease l ON l.owner = o.owner
				WHERE l.account_id = $1 AND l.service = $2 AND l.day = $3 AND o.expires_at < now() FOR UPDATE OF o),
			gone AS (DELETE FROM quota_lease WHERE account_id = $1 AND service = $2 AND day = $3 AND owner IN (SELECT owner FROM dead) RETURNING units)
			SELECT COALESCE(sum(units), 0)::BIGINT FROM gone`, key...).QueryRow(func(row pgx.Row) error { return row.Scan(&cur[i].reclaimed) })
		b.Queue(`SELECT COALESCE((SELECT units FROM quota_lease WHERE account_id = $1 AND service = $2 AND day = $3 AND owner = $4), 0)::BIGINT`,
			append(key, owner)...).QueryRow(func(row pgx.Row) error { return row.Scan(&cur[i].own) })
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, err
	}
	// … and a second one writes what the rules give, and renews the owner's leases
	out := make([]hensachi.QuotaState, len(syncs))
	b = &pgx.Batch{}
	for _, i := range order {
		q, c := syncs[i], cur[i]
		key := []any{q.AccountID, string(q.Service), q.Day}
		count := c.count + q.Used
		// The owner's lease cannot go below zero unless a sync whose commit failed in doubt is
		// repeated, or the lease expired meanwhile; then keeping it at zero errs on the strict side.
		own := max(c.own-q.Used-q.Returned, 0)
		leased := max(c.leased-c.reclaimed-(c.own-own), 0)
		var granted int64
		if q.Want > 0 {
			granted = min(q.Want, max(q.Limit-count-leased, 0))
		}
		own += granted
		leased += granted
		out[i] = hensachi.QuotaState{Granted: granted, Count: count, Leased: leased}
		if count != c.count || leased != c.leased {
			b.Queue(`UPDATE usage SET count = $4, leased = $5 WHERE account_id = $1 AND service = $2 AND day = $3`,
				append(key, count, leased)...)
		}
		if own > 0 {
			b.Queue(`INSERT INTO quota_lease (account_id, service, day, owner, units) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (account_id, service, day, owner) DO UPDATE SET units = EXCLUDED.units`, append(key, owner, own)...)
		} else if c.own > 0 {
			b.Queue(`DELETE FROM quota_lease WHERE account_id = $1 AND service = $2 AND day = $3 AND owner = $4`, append(key, owner)...)
		}
	}
	if b.Len() == 0 {
		return out, nil
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, err
	}
	return out, nil
}

// Quota returns a counter's count and leased units, for operators and tests.
func (s *Store) Quota(ctx context.Context, key hensachi.UsageKey) (count, leased int64, err error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	err = s.pool.QueryRow(ctx, `SELECT count, leased FROM usage WHERE account_id = $1 AND service = $2 AND day = $3`,
		key.AccountID, string(key.Service), key.Day).Scan(&count, &leased)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, nil
	}
	return count, leased, s.fail("quota", err)
}
