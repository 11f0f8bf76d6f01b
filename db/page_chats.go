package db

import (
	"context"
)

// PageExchanges lists the user's conversations about a live page of theirs, most recent activity
// first (at most limit), with their turn counts. It uses chat_exchange_page_history_idx.
func (s *Store) PageExchanges(ctx context.Context, userID, pageID int64, limit int) ([]ExchangeSummary, error) {
	var rows []ExchangeSummary
	err := s.DB.SelectContext(ctx, &rows, `
		SELECT `+exchangeColumns+`, coalesce(a.avatar, '') AS agent_avatar,
		       (SELECT count(*) FROM chat_message m WHERE m.exchange_id = e.id AND m.role = 'user') AS turns
		FROM chat_exchange e LEFT JOIN agents a ON a.id = e.agent_id
		WHERE e.page_id = $1 AND e.user_id = $2 AND e.deleted_at IS NULL
		  AND EXISTS (SELECT 1 FROM pages p WHERE p.id = e.page_id AND p.owner_id = $2 AND p.deleted_at IS NULL)
		ORDER BY e.updated_at DESC, e.id DESC
		LIMIT $3`, pageID, userID, limit)
	return rows, notFound(err, "page exchanges")
}

// PageExchange returns one of the user's conversations about their live page pageID.
func (s *Store) PageExchange(ctx context.Context, userID, pageID, exchangeID int64) (Exchange, error) {
	var e Exchange
	err := s.DB.GetContext(ctx, &e, `SELECT `+exchangeColumns+` FROM chat_exchange e
		JOIN pages p ON p.id = e.page_id AND p.owner_id = e.user_id AND p.deleted_at IS NULL
		WHERE e.id = $1 AND e.page_id = $2 AND e.user_id = $3 AND e.deleted_at IS NULL`, exchangeID, pageID, userID)
	return e, notFound(err, "page exchange")
}

// DeletePageExchanges deletes the listed conversations of the user's page (all of them when ids is
// nil) and returns how many went. Ids that are not conversations of this page are ignored.
func (s *Store) DeletePageExchanges(ctx context.Context, userID, pageID int64, ids []int64) (int64, error) {
	res, err := s.DB.ExecContext(ctx, `UPDATE chat_exchange SET deleted_at = now()
		WHERE page_id = $1 AND user_id = $2 AND deleted_at IS NULL AND ($3::bigint[] IS NULL OR id = ANY($3))`,
		pageID, userID, int64Array(ids))
	if err != nil {
		return 0, notFound(err, "delete page exchanges")
	}
	return res.RowsAffected()
}
