package db

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// PageExchanges lists the user's conversations about a live page of theirs, most recent activity
// first (at most limit), with their turn counts. It uses chat_exchange_page_history_idx.
func (s *Store) PageExchanges(ctx context.Context, userID, pageID int64, limit int) ([]ExchangeSummary, error) {
	var rows []ExchangeSummary
	err := s.DB.SelectContext(ctx, &rows, summaryFrom+`
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
// nil) and returns how many went; their pending proposals become superseded (and, like the
// conversations, unreachable). When a listed id is not a live conversation of this page it deletes
// nothing and returns ErrNotFound.
func (s *Store) DeletePageExchanges(ctx context.Context, userID, pageID int64, ids []int64) (int64, error) {
	var n int64
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var deleted []int64
		if err := tx.SelectContext(ctx, &deleted, `UPDATE chat_exchange SET deleted_at = now()
			WHERE page_id = $1 AND user_id = $2 AND deleted_at IS NULL AND ($3::bigint[] IS NULL OR id = ANY($3))
			RETURNING id`, pageID, userID, int64Array(ids)); err != nil {
			return err
		}
		n = int64(len(deleted))
		if ids != nil && len(deleted) < len(uniqueIDs(ids)) {
			return ErrNotFound // one is not a live conversation of this page: delete none
		}
		if n == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, `UPDATE page_edit_proposal pr SET status = 'superseded', decided_at = now()
			FROM chat_message m WHERE m.id = pr.message_id AND m.exchange_id = ANY($1) AND pr.status = 'pending'`,
			int64Array(deleted))
		return err
	})
	if err != nil {
		return 0, notFound(err, "delete page exchanges")
	}
	return n, nil
}

// uniqueIDs is ids without repeats.
func uniqueIDs(ids []int64) map[int64]bool {
	m := make(map[int64]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}
