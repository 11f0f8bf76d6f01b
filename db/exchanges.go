package db

import (
	"context"
	"time"

	"github.com/lib/pq"
)

// Exchange is one conversation thread (Galaxy's term), owned by a user (UserID) or by a guest
// session (GuestSessionID); the other is 0. PageID is set for a page's chats and nil for general
// chat; TeamID for a team's chats. Model is the model the person picked for it ("" = the agent's).
type Exchange struct {
	ID             int64     `db:"id"`
	UserID         int64     `db:"user_id"`
	GuestSessionID int64     `db:"guest_session_id"`
	AgentID        *int64    `db:"agent_id"`
	TeamID         *int64    `db:"team_id"`
	PageID         *int64    `db:"page_id"`
	Title          string    `db:"title"`
	Model          string    `db:"model"`
	CreatedAt      time.Time `db:"created_at"`
	UpdatedAt      time.Time `db:"updated_at"`
	// LeafMessageID ends the branch on screen; nil while the exchange never branched (branches.go).
	LeafMessageID *int64 `db:"leaf_message_id"`
}

// ExchangeSummary is one row of the history list: the exchange plus its number of turns.
type ExchangeSummary struct {
	Exchange
	Turns       int    `db:"turns"`
	AgentAvatar string `db:"agent_avatar"`
}

const exchangeColumns = `e.id, coalesce(e.user_id, 0) AS user_id, coalesce(e.guest_session_id, 0) AS guest_session_id,
	e.agent_id, e.team_id, e.page_id, e.title, e.model, e.created_at, e.updated_at, e.leaf_message_id`

// summaryFrom selects ExchangeSummary rows from chat_exchange e (add WHERE, ORDER BY, LIMIT).
const summaryFrom = `SELECT ` + exchangeColumns + `, coalesce(a.avatar, '') AS agent_avatar, ` + turnsOf + ` AS turns
	FROM chat_exchange e LEFT JOIN agents a ON a.id = e.agent_id`

// LatestGeneralExchange returns the user's most recently active general (page-less) exchange.
func (s *Store) LatestGeneralExchange(ctx context.Context, userID int64) (Exchange, error) {
	var e Exchange
	err := s.DB.GetContext(ctx, &e, `SELECT `+exchangeColumns+` FROM chat_exchange e
		WHERE e.user_id = $1 AND e.page_id IS NULL AND e.deleted_at IS NULL
		ORDER BY e.updated_at DESC, e.id DESC LIMIT 1`, userID)
	return e, notFound(err, "latest exchange")
}

// HistoryCursor is a keyset position in the history list: the last row's (updated_at, id).
type HistoryCursor struct {
	UpdatedAt time.Time
	ID        int64
}

// GeneralHistory lists the user's general exchanges, most recent activity first, limit rows after
// the cursor (nil for the first page). It uses chat_exchange_user_history_idx (keyset, no OFFSET).
func (s *Store) GeneralHistory(ctx context.Context, userID int64, after *HistoryCursor, limit int) ([]ExchangeSummary, error) {
	var rows []ExchangeSummary
	var afterTime any
	var afterID int64
	if after != nil {
		afterTime, afterID = after.UpdatedAt, after.ID
	}
	err := s.DB.SelectContext(ctx, &rows, summaryFrom+`
		WHERE e.user_id = $1 AND e.page_id IS NULL AND e.deleted_at IS NULL
		  AND ($2::timestamptz IS NULL OR (e.updated_at, e.id) < ($2, $3))
		ORDER BY e.updated_at DESC, e.id DESC
		LIMIT $4`, userID, afterTime, afterID, limit)
	return rows, notFound(err, "general history")
}

func int64Array(ids []int64) any { return pq.Array(ids) }

// ExchangeSummaryByID is one of the user's live general exchanges as a history row; anyone else's
// is ErrNotFound.
func (s *Store) ExchangeSummaryByID(ctx context.Context, userID, id int64) (ExchangeSummary, error) {
	var row ExchangeSummary
	err := s.DB.GetContext(ctx, &row, summaryFrom+`
		WHERE e.id = $1 AND e.user_id = $2 AND e.deleted_at IS NULL`, id, userID)
	return row, notFound(err, "exchange summary")
}
