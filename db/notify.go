package db

import (
	"context"

	"github.com/lib/pq"
)

// Notify sends each payload as one PostgreSQL NOTIFY on channel, all in one statement (payloads are
// at most 8,000 bytes each, PostgreSQL's limit). Listeners on every instance receive them
// (chat.PostgresNotifier).
func (s *Store) Notify(ctx context.Context, channel string, payloads []string) error {
	_, err := s.hotExec(ctx, `SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p`, channel, pq.Array(payloads))
	return notFound(err, "notify")
}
