package db

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jmoiron/sqlx"
)

// ExchangeOverview is one exchange as the JSON history lists it (Galaxy's ChatHistoryItemResponse):
// the exchange, its first query, the latest answer on the branch on screen (the one
// PUT …/feedback rates, see LatestAnswer) and its number of turns.
type ExchangeOverview struct {
	ID             int64           `db:"id"`
	PageID         *int64          `db:"page_id"`
	Title          string          `db:"title"`
	CreatedAt      time.Time       `db:"created_at"`
	UpdatedAt      time.Time       `db:"updated_at"`
	Query          string          `db:"query"`
	QueryAt        *time.Time      `db:"query_at"`
	AnswerID       int64           `db:"answer_id"`
	Response       string          `db:"response"`
	AgentType      string          `db:"agent_type"`
	Status         string          `db:"status"`
	Metadata       json.RawMessage `db:"metadata"`
	Feedback       *string         `db:"feedback"`
	FeedbackReason string          `db:"feedback_reason"`
	Turns          int             `db:"turns"`
}

const overviewSelect = `
	SELECT e.id, e.page_id, e.title, e.created_at, e.updated_at,
	       coalesce(q.content, '') AS query, q.created_at AS query_at,
	       coalesce(r.id, 0) AS answer_id, coalesce(r.content, '') AS response, coalesce(r.agent_type, '') AS agent_type,
	       coalesce(r.status, '') AS status, coalesce(r.metadata, '{}'::jsonb) AS metadata,
	       r.feedback, coalesce(r.feedback_reason, '') AS feedback_reason,
	       ` + turnsOf + ` AS turns
	FROM chat_exchange e
	LEFT JOIN LATERAL (SELECT id, content, created_at FROM chat_message
		WHERE exchange_id = e.id AND role = 'user' ORDER BY position, id LIMIT 1) q ON true
	-- r: the latest answer on the branch on screen, as LatestAnswer reads it
	LEFT JOIN LATERAL (SELECT id, content, agent_type, status, metadata, feedback, feedback_reason FROM chat_message
		WHERE exchange_id = e.id AND role = 'assistant' AND (e.leaf_message_id IS NULL OR id = e.leaf_message_id)
		ORDER BY position DESC, id DESC LIMIT 1) r ON true`

// GeneralOverviews lists the user's general (page-less) exchanges, most recent activity first, at
// most limit (chat_exchange_user_history_idx).
func (s *Store) GeneralOverviews(ctx context.Context, userID int64, limit int) ([]ExchangeOverview, error) {
	var out []ExchangeOverview
	err := s.DB.SelectContext(ctx, &out, overviewSelect+`
		WHERE e.user_id = $1 AND e.page_id IS NULL AND e.deleted_at IS NULL
		ORDER BY e.updated_at DESC, e.id DESC LIMIT $2`, userID, limit)
	return out, notFound(err, "general overviews")
}

// PageOverviews lists the user's own exchanges about a page, most recent activity first, at most
// limit (chat_exchange_page_history_idx). The caller checks the page is the user's.
func (s *Store) PageOverviews(ctx context.Context, userID, pageID int64, limit int) ([]ExchangeOverview, error) {
	var out []ExchangeOverview
	err := s.DB.SelectContext(ctx, &out, overviewSelect+`
		WHERE e.page_id = $2 AND e.user_id = $1 AND e.deleted_at IS NULL
		ORDER BY e.updated_at DESC, e.id DESC LIMIT $3`, userID, pageID, limit)
	return out, notFound(err, "page overviews")
}

// TrashExchange moves one of the user's live exchanges (of any scope) to the trash; a missing or
// foreign one is ErrNotFound.
func (s *Store) TrashExchange(ctx context.Context, userID, id int64) error {
	_, err := s.TrashExchangesAllOrNone(ctx, userID, []int64{id})
	return err
}

// TrashExchangesAllOrNone moves the user's live exchanges with these ids to the trash, all or
// none: when any id is missing, already in the trash or someone else's, nothing moves and the
// error is ErrNotFound. It returns the ids that moved (each once).
func (s *Store) TrashExchangesAllOrNone(ctx context.Context, userID int64, ids []int64) ([]int64, error) {
	distinct := map[int64]bool{}
	for _, id := range ids {
		distinct[id] = true
	}
	var moved []int64
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.SelectContext(ctx, &moved, `UPDATE chat_exchange SET deleted_at = now()
			WHERE id = ANY($2) AND user_id = $1 AND deleted_at IS NULL RETURNING id`, userID, int64Array(ids)); err != nil {
			return err
		}
		if len(moved) != len(distinct) {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return nil, notFound(err, "trash exchanges")
	}
	return moved, nil
}

// TrashGeneralHistory moves all the user's general (page-less) exchanges to the trash and returns
// their ids and how many messages they hold. Page chats stay.
func (s *Store) TrashGeneralHistory(ctx context.Context, userID int64) (ids []int64, messages int, err error) {
	err = s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.SelectContext(ctx, &ids, `UPDATE chat_exchange SET deleted_at = now()
			WHERE user_id = $1 AND page_id IS NULL AND deleted_at IS NULL RETURNING id`, userID); err != nil {
			return err
		}
		return tx.GetContext(ctx, &messages, `SELECT count(*) FROM chat_message WHERE exchange_id = ANY($1)`, int64Array(ids))
	})
	return ids, messages, notFound(err, "trash general history")
}
