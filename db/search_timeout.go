package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"parley/fault"
)

// DefaultSearchTimeout bounds a search statement when Store.SearchTimeout is 0.
const DefaultSearchTimeout = 2 * time.Second

// ErrSearchTimeout is returned by a search that ran longer than Store.SearchTimeout: PostgreSQL
// stopped it, so one search never holds a pooled connection for long.
var ErrSearchTimeout = &fault.Error{Code: fault.Unavailable, Field: "q",
	Message: "The search took too long and was stopped. Try fewer or rarer words, or an \"exact phrase\"."}

// searching runs fn in a transaction whose statements PostgreSQL cancels after
// s.SearchTimeout (SET LOCAL statement_timeout); a cancelled one is ErrSearchTimeout.
func (s *Store) searching(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	timeout := s.SearchTimeout
	if timeout <= 0 {
		timeout = DefaultSearchTimeout
	}
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT set_config('statement_timeout', $1, true)`,
			fmt.Sprintf("%dms", max(timeout.Milliseconds(), 1))); err != nil {
			return err
		}
		return fn(tx)
	})
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "57014" && ctx.Err() == nil {
		return ErrSearchTimeout
	}
	return err
}
