package db

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// AdoptGuest moves a guest session's conversations into a user's account (at sign-up or sign-in)
// and closes the guest session, all in one transaction. It returns how many conversations moved.
// An unknown, expired or already adopted guest session adopts nothing.
func (s *Store) AdoptGuest(ctx context.Context, guestID, userID int64) (int64, error) {
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
			WHERE guest_session_id = $1`, guestID, userID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, notFound(err, "adopt guest")
}
