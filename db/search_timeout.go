package db

import (
	"context"
	"errors"
	"time"

	"github.com/lib/pq"

	"parley/fault"
)

// DefaultSearchTimeout bounds a search statement when Store.SearchTimeout is 0.
const DefaultSearchTimeout = 2 * time.Second

// ErrSearchTimeout is returned by a search that ran longer than Store.SearchTimeout: PostgreSQL
// stopped it, so one search never holds a pooled connection for long.
var ErrSearchTimeout = &fault.Error{Code: fault.Unavailable, Field: "q",
	Message: "The search took too long and was stopped. Try fewer or rarer words, or an \"exact phrase\"."}

// searching runs fn with a context that ends after s.SearchTimeout: lib/pq then asks PostgreSQL to
// cancel the running statement, so a search never holds a pooled connection for long, at no extra
// statement (no transaction, no SET). A search stopped that way is ErrSearchTimeout; one whose
// caller went away keeps the caller's error.
func (s *Store) searching(ctx context.Context, fn func(ctx context.Context) error) error {
	timeout := s.SearchTimeout
	if timeout <= 0 {
		timeout = DefaultSearchTimeout
	}
	bounded, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := fn(bounded)
	if err == nil || ctx.Err() != nil {
		return err
	}
	var pqErr *pq.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &pqErr) && pqErr.Code == "57014" {
		return ErrSearchTimeout
	}
	return err
}
