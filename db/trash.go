package db

import (
	"context"
	"time"
)

// TrashedExchange is one row of the Trash view; PageTitle is the page a page chat is about ("" for
// a general conversation).
type TrashedExchange struct {
	ID        int64     `db:"id"`
	Title     string    `db:"title"`
	DeletedAt time.Time `db:"deleted_at"`
	PageID    *int64    `db:"page_id"`
	PageTitle string    `db:"page_title"`
}

// inTrash selects the user's ($1) trashed conversations the Trash shows: general ones and the chats
// of their live pages (a trashed page's chats go and come back with the page).
const inTrash = `e.user_id = $1 AND e.deleted_at IS NOT NULL
	AND (e.page_id IS NULL OR EXISTS (SELECT 1 FROM pages p WHERE p.id = e.page_id AND p.owner_id = $1 AND p.deleted_at IS NULL))`

// RenameExchange sets the title of the user's live exchange; anyone else's is ErrNotFound. The
// caller checks the title (see chat.CheckTitle).
func (s *Store) RenameExchange(ctx context.Context, userID, id int64, title string) (Exchange, error) {
	var e Exchange
	err := s.DB.GetContext(ctx, &e, `UPDATE chat_exchange e SET title = $3
		WHERE e.id = $1 AND e.user_id = $2 AND e.deleted_at IS NULL RETURNING `+exchangeColumns, id, userID, title)
	return e, notFound(err, "rename exchange")
}

// TrashExchanges moves the user's live general exchanges among ids to the trash and returns the ids it
// moved (others' and missing ids are skipped silently: the caller answers 404 when none moved).
func (s *Store) TrashExchanges(ctx context.Context, userID int64, ids []int64) ([]int64, error) {
	var out []int64
	err := s.DB.SelectContext(ctx, &out, `UPDATE chat_exchange SET deleted_at = now()
		WHERE user_id = $1 AND id = ANY($2) AND page_id IS NULL AND deleted_at IS NULL RETURNING id`, userID, int64Array(ids))
	return out, notFound(err, "trash exchanges")
}

// TrashedAmong returns the ids among ids of the user's general exchanges that are in the Trash
// (others' and missing ids are left out), by primary key.
func (s *Store) TrashedAmong(ctx context.Context, userID int64, ids []int64) ([]int64, error) {
	var out []int64
	err := s.DB.SelectContext(ctx, &out, `SELECT id FROM chat_exchange
		WHERE id = ANY($2) AND user_id = $1 AND page_id IS NULL AND deleted_at IS NOT NULL ORDER BY id`, userID, int64Array(ids))
	return out, notFound(err, "trashed among")
}

// RestoreExchanges takes the user's trashed conversations among ids that the Trash shows (general
// ones, chats of live pages) out of the trash and returns the ids it restored.
func (s *Store) RestoreExchanges(ctx context.Context, userID int64, ids []int64) ([]int64, error) {
	var out []int64
	err := s.DB.SelectContext(ctx, &out, `UPDATE chat_exchange e SET deleted_at = NULL
		WHERE `+inTrash+` AND e.id = ANY($2) RETURNING e.id`, userID, int64Array(ids))
	return out, notFound(err, "restore exchanges")
}

// PurgeExchanges deletes the user's trashed conversations among ids that the Trash shows for good,
// with their messages, proposals and share links, and returns the ids it deleted. Live exchanges
// are never purged.
func (s *Store) PurgeExchanges(ctx context.Context, userID int64, ids []int64) ([]int64, error) {
	var out []int64
	err := s.DB.SelectContext(ctx, &out, `DELETE FROM chat_exchange e
		WHERE `+inTrash+` AND e.id = ANY($2) RETURNING e.id`, userID, int64Array(ids))
	return out, notFound(err, "purge exchanges")
}

// trashChunk bounds how many conversations one statement of RestoreTrash or EmptyTrash touches.
const trashChunk = 500

// RestoreTrash takes every conversation the user had in the Trash when called out of it, in
// statements of at most trashChunk rows on chat_exchange_user_any_trash_idx, and returns how many.
func (s *Store) RestoreTrash(ctx context.Context, userID int64) (int64, error) {
	return s.inChunks(ctx, userID, `UPDATE chat_exchange SET deleted_at = NULL WHERE id IN (`+trashedBefore+`)`)
}

// EmptyTrash deletes for good every conversation the user had in the Trash when called, with
// their messages and share links, in statements of at most trashChunk rows, and returns how many.
func (s *Store) EmptyTrash(ctx context.Context, userID int64) (int64, error) {
	return s.inChunks(ctx, userID, `DELETE FROM chat_exchange WHERE id IN (`+trashedBefore+`)`)
}

// trashedBefore selects up to $3 of the conversations in user $1's Trash deleted by $2.
const trashedBefore = `SELECT e.id FROM chat_exchange e WHERE ` + inTrash + `
	AND e.deleted_at <= $2 ORDER BY e.deleted_at DESC, e.id DESC LIMIT $3`

// inChunks runs stmt (with trashedBefore's parameters) until it touches no more rows; conversations
// trashed meanwhile are left alone.
func (s *Store) inChunks(ctx context.Context, userID int64, stmt string) (int64, error) {
	var start time.Time
	if err := s.DB.GetContext(ctx, &start, `SELECT statement_timestamp()`); err != nil {
		return 0, notFound(err, "trash start")
	}
	var total int64
	for {
		res, err := s.DB.ExecContext(ctx, stmt, userID, start, trashChunk)
		if err != nil {
			return total, notFound(err, "trash chunk")
		}
		n, _ := res.RowsAffected()
		total += n
		if n < trashChunk {
			return total, nil
		}
	}
}

// TrashCursor is a keyset position in the trash: the last row's (deleted_at, id).
type TrashCursor struct {
	DeletedAt time.Time
	ID        int64
}

// Trash lists the conversations in the user's Trash (general ones and chats of live pages, with
// their page's title), most recently deleted first, limit rows after the cursor (nil: the first
// page), on chat_exchange_user_any_trash_idx.
func (s *Store) Trash(ctx context.Context, userID int64, after *TrashCursor, limit int) ([]TrashedExchange, error) {
	var rows []TrashedExchange
	var afterTime any
	var afterID int64
	if after != nil {
		afterTime, afterID = after.DeletedAt, after.ID
	}
	err := s.DB.SelectContext(ctx, &rows, `SELECT e.id, e.title, e.deleted_at, e.page_id,
		coalesce((SELECT p.title FROM pages p WHERE p.id = e.page_id), '') AS page_title
		FROM chat_exchange e
		WHERE `+inTrash+`
		  AND ($2::timestamptz IS NULL OR (e.deleted_at, e.id) < ($2, $3))
		ORDER BY e.deleted_at DESC, e.id DESC LIMIT $4`, userID, afterTime, afterID, limit)
	return rows, notFound(err, "trash")
}

// ImproveTitle replaces an exchange's title made from its first query (old) by a better one; a
// title the person changed since is kept; title is stored as storable makes it (a model wrote it).
// It is not an error when nothing changed.
func (s *Store) ImproveTitle(ctx context.Context, exchangeID int64, old, title string) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE chat_exchange SET title = $3 WHERE id = $1 AND title = $2`, exchangeID, old, storable(title))
	return notFound(err, "improve title")
}
