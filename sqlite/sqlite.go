// Package sqlite is the embedded store: accounts, keys and usage counts in one SQLite file (WAL
// mode, pure-Go driver), so the server runs with no setup.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/hensachi/hensachi"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is a hensachi.Store on a SQLite file.
type Store struct {
	db    *sql.DB
	now   func() time.Time
	files *openFiles
}

var _ hensachi.Store = (*Store)(nil)

// Open opens (creating if needed) the database file and applies pending migrations. It refuses a
// database whose file is missing beside its log, and one that fails SQLite's quick integrity check.
func Open(ctx context.Context, path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	if err := checkFilesAtStart(path); err != nil {
		return nil, err
	}
	files, err := newOpenFiles(path)
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "busy_timeout(5000)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{db: db, now: time.Now, files: files}
	if err := s.quickCheck(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("check %s: %w", path, err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return err
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	for _, name := range names {
		version := strings.TrimSuffix(filepath.Base(name), ".sql")
		if err := s.tx(ctx, func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, version).Scan(&n); err != nil || n > 0 {
				return err
			}
			body, err := migrations.ReadFile(name)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, version, s.timestamp())
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// SetClock makes the store read the time from now instead of time.Now: the times it records, and
// the interval between two checks of its open files (Ping), so that a test advances a clock instead
// of waiting. Call it before the store is in use.
func (s *Store) SetClock(now func() time.Time) {
	s.now = now
	s.files.mu.Lock()
	s.files.now = now
	s.files.mu.Unlock()
}

func (s *Store) timestamp() string { return s.now().UTC().Format(time.RFC3339Nano) }

func parseTime(ns sql.NullString) time.Time {
	if !ns.Valid {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339Nano, ns.String)
	return t
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Ping checks that the database answers and that its files are still the ones the server opened.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.files.check(); err != nil {
		return err
	}
	return s.db.PingContext(ctx)
}

func (s *Store) CreateAccount(ctx context.Context, a hensachi.Account, key hensachi.APIKey) (hensachi.Account, hensachi.APIKey, error) {
	now := s.timestamp()
	var terms sql.NullString
	if !a.TermsAcceptedAt.IsZero() {
		terms = sql.NullString{String: a.TermsAcceptedAt.UTC().Format(time.RFC3339Nano), Valid: true}
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM accounts WHERE email = ?`, a.Email).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return hensachi.Errorf(hensachi.EConflict, "an account with e-mail %s exists", a.Email)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO accounts (email, plan, created_at, terms_version, terms_accepted_at) VALUES (?, ?, ?, ?, ?)`,
			a.Email, string(a.Plan), now, a.TermsVersion, terms)
		if err != nil {
			return err
		}
		if a.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		key.AccountID = a.ID
		key, err = insertKey(ctx, tx, key, now)
		return err
	})
	if err != nil {
		return hensachi.Account{}, hensachi.APIKey{}, err
	}
	a.CreatedAt, _ = time.Parse(time.RFC3339Nano, now)
	return a, key, nil
}

func insertKey(ctx context.Context, tx *sql.Tx, key hensachi.APIKey, now string) (hensachi.APIKey, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO api_keys (account_id, hash, hint, created_at) VALUES (?, ?, ?, ?)`,
		key.AccountID, key.Hash[:], key.Hint, now)
	if err != nil {
		return key, err
	}
	key.ID, err = res.LastInsertId()
	key.CreatedAt, _ = time.Parse(time.RFC3339Nano, now)
	return key, err
}

const accountColumns = `id, email, plan, created_at, terms_version, terms_accepted_at, origins`

func scanAccount(row interface{ Scan(...any) error }) (hensachi.Account, error) {
	var a hensachi.Account
	var plan string
	var created, terms sql.NullString
	var origins string
	if err := row.Scan(&a.ID, &a.Email, &plan, &created, &a.TermsVersion, &terms, &origins); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return a, hensachi.Errorf(hensachi.ENotFound, "no such account")
		}
		return a, err
	}
	a.Plan, a.CreatedAt, a.TermsAcceptedAt, a.Origins = hensachi.Plan(plan), parseTime(created), parseTime(terms), splitOrigins(origins)
	return a, nil
}

// splitOrigins reads the origins column, one origin a line.
func splitOrigins(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func (s *Store) Account(ctx context.Context, id int64) (hensachi.Account, error) {
	return scanAccount(s.db.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = ?`, id))
}

func (s *Store) AccountByEmail(ctx context.Context, email string) (hensachi.Account, error) {
	return scanAccount(s.db.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE email = ?`, email))
}

func (s *Store) Accounts(ctx context.Context) ([]hensachi.Account, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+accountColumns+` FROM accounts ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []hensachi.Account
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

func (s *Store) SetPlan(ctx context.Context, accountID int64, plan hensachi.Plan) error {
	if !plan.Valid() {
		return hensachi.Errorf(hensachi.EInvalidParameter, "unknown plan %q (free or pro)", plan)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE accounts SET plan = ? WHERE id = ?`, string(plan), accountID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return hensachi.Errorf(hensachi.ENotFound, "no account %d", accountID)
	}
	return nil
}

func (s *Store) AcceptTerms(ctx context.Context, accountID int64, version string, at time.Time) error {
	res, err := s.db.ExecContext(ctx, `UPDATE accounts SET terms_version = ?, terms_accepted_at = ? WHERE id = ?`,
		version, at.UTC().Format(time.RFC3339Nano), accountID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return hensachi.Errorf(hensachi.ENotFound, "no account %d", accountID)
	}
	return nil
}

func (s *Store) SetOrigins(ctx context.Context, accountID int64, origins []string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE accounts SET origins = ? WHERE id = ?`, strings.Join(origins, "\n"), accountID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return hensachi.Errorf(hensachi.ENotFound, "no account %d", accountID)
	}
	return nil
}

func (s *Store) RotateKey(ctx context.Context, accountID int64, key hensachi.APIKey) (hensachi.APIKey, error) {
	now := s.timestamp()
	key.AccountID = accountID
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM accounts WHERE id = ?`, accountID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return hensachi.Errorf(hensachi.ENotFound, "no account %d", accountID)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL`, now, accountID); err != nil {
			return err
		}
		var err error
		key, err = insertKey(ctx, tx, key, now)
		return err
	})
	return key, err
}

func (s *Store) RevokeKeys(ctx context.Context, accountID int64) (int, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL`, s.timestamp(), accountID)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

const keyColumns = `k.id, k.account_id, k.hash, k.hint, k.created_at, k.revoked_at`

func (s *Store) Keys(ctx context.Context, accountID int64) ([]hensachi.APIKey, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+keyColumns+` FROM api_keys k WHERE k.account_id = ? ORDER BY k.id`, accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []hensachi.APIKey
	for rows.Next() {
		var k hensachi.APIKey
		var hash []byte
		var created, revoked sql.NullString
		if err := rows.Scan(&k.ID, &k.AccountID, &hash, &k.Hint, &created, &revoked); err != nil {
			return nil, err
		}
		copy(k.Hash[:], hash)
		k.CreatedAt, k.RevokedAt = parseTime(created), parseTime(revoked)
		out = append(out, k)
	}
	return out, rows.Err()
}

func (s *Store) KeyByHash(ctx context.Context, hash [32]byte) (hensachi.APIKey, hensachi.Account, error) {
	row := s.db.QueryRowContext(ctx, `SELECT `+keyColumns+`, a.email, a.plan, a.created_at, a.terms_version, a.terms_accepted_at, a.origins
		FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ?`, hash[:])
	var k hensachi.APIKey
	var a hensachi.Account
	var h []byte
	var plan string
	var kCreated, kRevoked, aCreated, aTerms sql.NullString
	var origins string
	if err := row.Scan(&k.ID, &k.AccountID, &h, &k.Hint, &kCreated, &kRevoked, &a.Email, &plan, &aCreated, &a.TermsVersion, &aTerms, &origins); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return k, a, hensachi.Errorf(hensachi.ENotFound, "no such key")
		}
		return k, a, err
	}
	copy(k.Hash[:], h)
	k.CreatedAt, k.RevokedAt = parseTime(kCreated), parseTime(kRevoked)
	a.ID, a.Plan, a.CreatedAt, a.TermsAcceptedAt = k.AccountID, hensachi.Plan(plan), parseTime(aCreated), parseTime(aTerms)
	a.Origins = splitOrigins(origins)
	return k, a, nil
}

func (s *Store) AddUsage(ctx context.Context, deltas []hensachi.Usage) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		for _, d := range deltas {
			if _, err := tx.ExecContext(ctx, `INSERT INTO usage (account_id, service, day, count) VALUES (?, ?, ?, ?)
				ON CONFLICT (account_id, service, day) DO UPDATE SET count = count + excluded.count`,
				d.AccountID, string(d.Service), d.Day, d.Count); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *Store) Usage(ctx context.Context, day string, accountID int64) ([]hensachi.Usage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT account_id, service, day, count FROM usage
		WHERE day = ? AND (? = 0 OR account_id = ?) ORDER BY account_id, service`, day, accountID, accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []hensachi.Usage
	for rows.Next() {
		var u hensachi.Usage
		var svc string
		if err := rows.Scan(&u.AccountID, &svc, &u.Day, &u.Count); err != nil {
			return nil, err
		}
		u.Service = hensachi.Service(svc)
		out = append(out, u)
	}
	return out, rows.Err()
}
