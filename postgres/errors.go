package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hensachi/hensachi"
)

// errUnavailable is what a client is told when the database cannot be reached: the HTTP layer
// answers 503 with it (try again), not 500.
var errUnavailable = hensachi.Errorf(hensachi.EUnavailable, "the database is unavailable; try again shortly")

// dbError is a failed store call: the operation and the driver's error, and, when the database
// could not be reached, errUnavailable in its chain.
type dbError struct {
	op          string
	err         error
	unavailable bool
}

func (e *dbError) Error() string { return "postgres: " + e.op + ": " + e.err.Error() }

func (e *dbError) Unwrap() []error {
	if e.unavailable {
		return []error{errUnavailable, e.err}
	}
	return []error{e.err}
}

// fail wraps err with the operation; hensachi errors (not found, conflict) pass as they are. A
// connection-level failure resets the pool: when one connection finds the server gone (restarted,
// failed over), the idle ones are as dead, and dropping them now makes the first calls after the
// server's return succeed instead of each failing once on a stale connection.
func (s *Store) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	var he *hensachi.Error
	if errors.As(err, &he) {
		return err
	}
	lost := connectionLost(err)
	if lost {
		s.pool.Reset()
	}
	return &dbError{op: op, err: err, unavailable: lost || errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)}
}

// connectionLost reports whether err means that the database could not be reached or went away,
// as opposed to a failed statement.
func connectionLost(err error) bool {
	var connect *pgconn.ConnectError
	if errors.As(err, &connect) {
		return true // includes "the database system is starting up" and refused connections
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// class 08: connection exception; 57P01–57P03: administrator shutdown, crash shutdown,
		// cannot connect now; 53300: too many connections
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" ||
			pgErr.Code == "57P03" || pgErr.Code == "53300"
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}
