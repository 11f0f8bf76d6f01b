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

// DeletePageExchanges moves the listed conversations of the user's page (all of them when ids is
// nil) to the Trash and returns the ids it moved; RestorePageExchanges takes them out again. Their
// pending proposals stay pending but out of reach (db.UserProposal skips trashed conversations)
// until then. When a listed id is not a live conversation of this page it moves nothing and
// returns ErrNotFound.
func (s *Store) DeletePageExchanges(ctx context.Context, userID, pageID int64, ids []int64) ([]int64, error) {
	var deleted []int64
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.SelectContext(ctx, &deleted, `UPDATE chat_exchange SET deleted_at = now()
			WHERE page_id = $1 AND user_id = $2 AND deleted_at IS NULL AND ($3::bigint[] IS NULL OR id = ANY($3))
			RETURNING id`, pageID, userID, int64Array(ids)); err != nil {
			return err
		}
		if ids != nil && len(deleted) < len(uniqueIDs(ids)) {
			return ErrNotFound // one is not a live conversation of this page: move none
		}
		return nil
	})
	if err != nil {
		return nil, notFound(err, "delete page exchanges")
	}
	return deleted, nil
}

// RestorePageExchanges takes the user's trashed conversations among ids about their live page
// pageID out of the Trash and returns the ids it restored (others' and other pages' are skipped).
func (s *Store) RestorePageExchanges(ctx context.Context, userID, pageID int64, ids []int64) ([]int64, error) {
	var out []int64
	err := s.DB.SelectContext(ctx, &out, `UPDATE chat_exchange e SET deleted_at = NULL
		WHERE `+inTrash+` AND e.page_id = $2 AND e.id = ANY($3) RETURNING e.id`, userID, pageID, int64Array(ids))
	return out, notFound(err, "restore page exchanges")
}

// uniqueIDs is ids without repeats.
func uniqueIDs(ids []int64) map[int64]bool {
	m := make(map[int64]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}
