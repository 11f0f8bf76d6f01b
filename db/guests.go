package db

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
)

// AdoptGuest moves the conversations a guest session started at or after since (the current
// visit's) into a user's account (at sign-up or sign-in) and closes the guest session, all in one
// transaction; older ones (someone else's, perhaps) stay with the closed session. It returns how
// many conversations moved. An unknown, expired or already adopted guest session adopts nothing.
func (s *Store) AdoptGuest(ctx context.Context, guestID, userID int64, since time.Time) (int64, error) {
	var n int64
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE guest_sessions SET adopted_by = $2, expires_at = now()
			WHERE id = $1 AND adopted_by IS NULL`, guestID, userID)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return nil
		}
		res, err = tx.ExecContext(ctx, `UPDATE chat_exchange SET user_id = $2, guest_session_id = NULL
			WHERE guest_session_id = $1 AND created_at >= $3`, guestID, userID, since)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, notFound(err, "adopt guest")
}

// GuestVisitExchanges counts the live conversations a guest session started at or after since
// (what AdoptGuest would move, less those deleted).
func (s *Store) GuestVisitExchanges(ctx context.Context, guestID int64, since time.Time) (int, error) {
	var n int
	err := s.DB.GetContext(ctx, &n, `SELECT count(*) FROM chat_exchange
		WHERE guest_session_id = $1 AND created_at >= $2 AND deleted_at IS NULL`, guestID, since)
	return n, err
}
