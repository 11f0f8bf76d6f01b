package db

import (
	"context"
	"database/sql"
	"sync"

	"github.com/jmoiron/sqlx"
)

// prepared holds the named prepared statements of the hot path of a chat turn (the session and
// exchange reads, the agent, the follow-up, the history, each answer write) and of the searches
// (SearchConversations, SearchWorkspace), one per query text.
// database/sql prepares a statement on each pooled connection the first time it runs there, so
// PostgreSQL parses it once per connection and, from the sixth execution on, reuses a generic plan
// when it costs no more than the custom ones (plan_cache_mode auto): planning these statements
// cost more CPU than running them. A statement that cannot be prepared (the database is away) is
// not kept, and the next call tries again.
type prepared struct {
	db      *sqlx.DB
	byQuery sync.Map // query text → *sqlx.Stmt
}

// SetPrepared turns the named prepared statements of the hot path on (the default of Open) or
// off (PARLEY_DB_PREPARED=false, for a pooler that cannot keep them, such as PgBouncer before
// 1.21 or without max_prepared_statements in transaction mode). Call it before the store is used.
func (s *Store) SetPrepared(on bool) {
	if !on {
		s.prepared = nil
	} else if s.prepared == nil {
		s.prepared = &prepared{db: s.DB}
	}
}

// stmt returns query prepared, or nil when prepared statements are off.
func (s *Store) stmt(ctx context.Context, query string) (*sqlx.Stmt, error) {
	p := s.prepared
	if p == nil {
		return nil, nil
	}
	if st, ok := p.byQuery.Load(query); ok {
		return st.(*sqlx.Stmt), nil
	}
	st, err := p.db.PreparexContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if old, loaded := p.byQuery.LoadOrStore(query, st); loaded {
		_ = st.Close()
		return old.(*sqlx.Stmt), nil
	}
	return st, nil
}

// hotSelect is DB.SelectContext through the query's prepared statement.
func (s *Store) hotSelect(ctx context.Context, dest any, query string, args ...any) error {
	st, err := s.stmt(ctx, query)
	if err != nil {
		return err
	}
	if st == nil {
		return s.DB.SelectContext(ctx, dest, query, args...)
	}
	return st.SelectContext(ctx, dest, args...)
}

// hotGet is DB.GetContext through the query's prepared statement.
func (s *Store) hotGet(ctx context.Context, dest any, query string, args ...any) error {
	st, err := s.stmt(ctx, query)
	if err != nil {
		return err
	}
	if st == nil {
		return s.DB.GetContext(ctx, dest, query, args...)
	}
	return st.GetContext(ctx, dest, args...)
}

// hotExec is DB.ExecContext through the query's prepared statement.
func (s *Store) hotExec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := s.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return s.DB.ExecContext(ctx, query, args...)
	}
	return st.ExecContext(ctx, args...)
}

// hotQuery is DB.QueryContext through the query's prepared statement.
func (s *Store) hotQuery(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := s.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return s.DB.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

// close closes the prepared statements.
func (p *prepared) close() {
	if p == nil {
		return
	}
	p.byQuery.Range(func(_, st any) bool {
		_ = st.(*sqlx.Stmt).Close()
		return true
	})
}
