package db

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"strings"
)

// ServerSecret returns the named secret, creating it from n random bytes on first use. Concurrent
// first calls (several instances starting) agree on one value.
func (s *Store) ServerSecret(ctx context.Context, name string, n int) ([]byte, error) {
	fresh := make([]byte, n)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	var value []byte
	err := s.DB.GetContext(ctx, &value, `
		WITH ins AS (
			INSERT INTO server_secrets (name, value) VALUES ($1, $2)
			ON CONFLICT (name) DO NOTHING RETURNING value)
		SELECT value FROM ins
		UNION ALL
		SELECT value FROM server_secrets WHERE name = $1
		LIMIT 1`, name, fresh)
	if errors.Is(err, sql.ErrNoRows) {
		// Another instance inserted it after our snapshot was taken: it is committed now.
		err = s.DB.GetContext(ctx, &value, `SELECT value FROM server_secrets WHERE name = $1`, name)
	}
	return value, notFound(err, "server secret")
}

// prefixed qualifies each column of a comma-separated list with a table alias: ("u.", "a, b") → "u.a, u.b".
func prefixed(alias, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		parts[i] = alias + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}
