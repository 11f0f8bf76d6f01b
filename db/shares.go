package db

import (
	"context"
	"encoding/json"
	"time"
)

// Share is a read-only snapshot link of a conversation (chat_share). Snapshot is JSON frozen at
// share time (see handlers' sharedMessage); Token is the secret part of the link.
type Share struct {
	ID         int64           `db:"id"`
	Token      string          `db:"token"`
	ExchangeID int64           `db:"exchange_id"`
	Title      string          `db:"title"`
	Snapshot   json.RawMessage `db:"snapshot"`
	CreatedAt  time.Time       `db:"created_at"`
	RevokedAt  *time.Time      `db:"revoked_at"`
}

const shareColumns = `id, token, exchange_id, title, snapshot, created_at, revoked_at`

// CreateShare stores a snapshot link of the user's live exchange; anyone else's is ErrNotFound.
func (s *Store) CreateShare(ctx context.Context, userID, exchangeID int64, token, title string, snapshot json.RawMessage) (Share, error) {
	var sh Share
	err := s.DB.GetContext(ctx, &sh, `INSERT INTO chat_share (token, exchange_id, user_id, title, snapshot)
		SELECT $3, e.id, e.user_id, $4, $5 FROM chat_exchange e WHERE e.id = $2 AND e.user_id = $1 AND e.deleted_at IS NULL
		RETURNING `+shareColumns, userID, exchangeID, token, title, string(snapshot))
	return sh, notFound(err, "create share")
}

// ExchangeShares lists the share links of the user's exchange, newest first (without snapshots).
func (s *Store) ExchangeShares(ctx context.Context, userID, exchangeID int64) ([]Share, error) {
	var out []Share
	err := s.DB.SelectContext(ctx, &out, `SELECT id, token, exchange_id, title, '{}'::jsonb AS snapshot, created_at, revoked_at
		FROM chat_share WHERE exchange_id = $2 AND user_id = $1 ORDER BY created_at DESC, id DESC`, userID, exchangeID)
	return out, notFound(err, "exchange shares")
}

// RevokeShare ends share link id of the user's exchange: it answers 404 from then on. Anyone
// else's, or one already revoked, is ErrNotFound.
func (s *Store) RevokeShare(ctx context.Context, userID, exchangeID, id int64) error {
	res, err := s.DB.ExecContext(ctx, `UPDATE chat_share SET revoked_at = now()
		WHERE id = $3 AND exchange_id = $2 AND user_id = $1 AND revoked_at IS NULL`, userID, exchangeID, id)
	return affectedOne(res, err, "revoke share")
}

// SharedSnapshot returns the live share link with token; a revoked or unknown one, or one whose
// conversation is in the Trash, is ErrNotFound.
func (s *Store) SharedSnapshot(ctx context.Context, token string) (Share, error) {
	var sh Share
	err := s.DB.GetContext(ctx, &sh, `SELECT `+prefixed("s.", shareColumns)+`
		FROM chat_share s JOIN chat_exchange e ON e.id = s.exchange_id
		WHERE s.token = $1 AND s.revoked_at IS NULL AND e.deleted_at IS NULL`, token)
	return sh, notFound(err, "shared snapshot")
}
