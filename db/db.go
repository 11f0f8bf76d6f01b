// Package db is Parley's PostgreSQL store: every SQL statement lives here, in one file per
// aggregate (users.go, sessions.go, …). Queries are scoped by owner; a row that is missing or
// belongs to someone else is ErrNotFound.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"parley/fault"
)

// ErrNotFound is returned when a row does not exist or is not the caller's.
var ErrNotFound = &fault.Error{Code: fault.NotFound, Message: "Nothing was found here: it does not exist, was deleted, or is not yours."}

// Store wraps the connection pool. It is safe for concurrent use.
type Store struct {
	DB *sqlx.DB
	// SearchTimeout bounds each search statement (PARLEY_SEARCH_TIMEOUT); 0 is DefaultSearchTimeout.
	SearchTimeout time.Duration
	// prepared are the hot path's prepared statements (prepared.go); nil runs them unprepared.
	prepared *prepared
}

// Open connects to PostgreSQL with a lib/pq DSN (URL or key=value form) and checks the connection
// within 10 s. Statements with parameters go in one round trip (lib/pq's binary_parameters, unless
// the DSN sets it): parse, bind and execute are sent together instead of preparing first, which
// halves the round trips of every statement of a chat turn. Parameters then travel untyped, so a
// jsonb value must be passed as a string, never as []byte (which is sent as binary bytea). The
// statements of a chat turn run as named prepared statements (prepared.go; SetPrepared turns them
// off). The pool keeps up to 20 connections, all of them when idle, so a burst of requests does not
// close and reopen connections (each a new PostgreSQL backend that prepares its statements again).
func Open(ctx context.Context, dsn string) (*Store, error) {
	conn, err := sqlx.Open("postgres", oneRoundTrip(dsn))
	if err != nil {
		return nil, fmt.Errorf("db: open: %w", err)
	}
	conn.SetMaxOpenConns(20)
	conn.SetMaxIdleConns(20)
	conn.SetConnMaxIdleTime(5 * time.Minute)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := conn.PingContext(ctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("db: cannot reach PostgreSQL (check DATABASE_URL): %w", err)
	}
	s := &Store{DB: conn}
	s.SetPrepared(true)
	return s, nil
}

// Close closes the prepared statements and the pool.
func (s *Store) Close() error {
	s.prepared.close()
	return s.DB.Close()
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.DB.PingContext(ctx) }

// WithTx runs fn in a transaction, committing when fn returns nil and rolling back otherwise.
func (s *Store) WithTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	tx, err := s.DB.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("db: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("db: commit: %w", err)
	}
	return nil
}

// oneRoundTrip adds binary_parameters=yes to dsn unless it sets binary_parameters.
func oneRoundTrip(dsn string) string {
	if strings.Contains(dsn, "binary_parameters") {
		return dsn
	}
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("binary_parameters", "yes")
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " binary_parameters=yes"
}

// notFound maps sql.ErrNoRows to ErrNotFound and wraps other errors with what was being done.
func notFound(err error, doing string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("db: %s: %w", doing, err)
	}
	return nil
}

// isUniqueViolation reports whether err is PostgreSQL's unique_violation (23505) on constraint.
func isUniqueViolation(err error, constraint string) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && pqErr.Code == "23505" && (constraint == "" || pqErr.Constraint == constraint)
}
