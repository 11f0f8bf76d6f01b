package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"parley/fault"
)

// APIKey is one of a person's API keys as listed: never the key itself, only its first characters
// (Prefix) so the person can tell keys apart. The key's SHA-256 is stored, nothing else.
type APIKey struct {
	ID         int64      `db:"id"`
	UserID     int64      `db:"user_id"`
	Name       string     `db:"name"`
	Prefix     string     `db:"prefix"`
	CreatedAt  time.Time  `db:"created_at"`
	LastUsedAt *time.Time `db:"last_used_at"`
	RevokedAt  *time.Time `db:"revoked_at"`
}

const apiKeyColumns = `id, user_id, name, prefix, created_at, last_used_at, revoked_at`

// MaxLiveAPIKeys bounds how many unrevoked keys one account may hold.
const MaxLiveAPIKeys = 50

// ErrTooManyAPIKeys is returned by CreateAPIKey when the account already holds MaxLiveAPIKeys.
var ErrTooManyAPIKeys = &fault.Error{Code: fault.Conflict, Message: fmt.Sprintf("You have %d live API keys; revoke one before creating another.", MaxLiveAPIKeys)}

// CreateAPIKey stores a new key of the user by its SHA-256 (keyHash) and display prefix, or
// returns ErrTooManyAPIKeys.
func (s *Store) CreateAPIKey(ctx context.Context, userID int64, name, prefix string, keyHash []byte) (APIKey, error) {
	var k APIKey
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		// One creation at a time per account, so the limit holds under concurrent requests.
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, userID); err != nil {
			return err
		}
		var live int
		if err := tx.GetContext(ctx, &live, `SELECT count(*) FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL`, userID); err != nil {
			return err
		}
		if live >= MaxLiveAPIKeys {
			return ErrTooManyAPIKeys
		}
		return tx.GetContext(ctx, &k, `INSERT INTO api_keys (user_id, name, prefix, key_hash) VALUES ($1, $2, $3, $4)
			RETURNING `+apiKeyColumns, userID, name, prefix, keyHash)
	})
	if err == ErrTooManyAPIKeys {
		return k, err
	}
	return k, notFound(err, "create api key")
}

// APIKeys lists the user's keys, revoked ones included, newest first (at most 200).
func (s *Store) APIKeys(ctx context.Context, userID int64) ([]APIKey, error) {
	var out []APIKey
	err := s.DB.SelectContext(ctx, &out, `SELECT `+apiKeyColumns+` FROM api_keys WHERE user_id = $1
		ORDER BY created_at DESC, id DESC LIMIT 200`, userID)
	return out, notFound(err, "api keys")
}

// RevokeAPIKey revokes one of the user's live keys at once; someone else's, a missing or an already
// revoked key is ErrNotFound.
func (s *Store) RevokeAPIKey(ctx context.Context, userID, id int64) error {
	res, err := s.DB.ExecContext(ctx, `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL`, id, userID)
	if err != nil {
		return notFound(err, "revoke api key")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// UserByAPIKey returns the account of a live (not revoked) key by the key's SHA-256, noting when
// it was last used (at most one write a minute per key). An unknown or revoked key is ErrNotFound.
func (s *Store) UserByAPIKey(ctx context.Context, keyHash []byte) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `
		WITH k AS (
			UPDATE api_keys SET last_used_at = now()
			WHERE key_hash = $1 AND revoked_at IS NULL
			  AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
			RETURNING user_id)
		SELECT `+prefixed("u.", userColumns)+` FROM users u
		WHERE u.id = coalesce((SELECT user_id FROM k),
			(SELECT user_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL))`, keyHash)
	return u, notFound(err, "user by api key")
}
