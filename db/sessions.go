package db

import (
	"context"
	"time"
)

// CreateUserSession stores a sign-in: the SHA-256 of its random token (the token itself lives only
// in the client's cookie), the user, and when it expires.
func (s *Store) CreateUserSession(ctx context.Context, tokenHash []byte, userID int64, userAgent, ip string, expiresAt time.Time) error {
	_, err := s.DB.ExecContext(ctx, `
		INSERT INTO user_sessions (token_hash, user_id, user_agent, ip, expires_at)
		VALUES ($1, $2, $3, $4, $5)`, tokenHash, userID, truncate(userAgent, 512), ip, expiresAt)
	return notFound(err, "create user session")
}

// touchEvery is how stale a session's last_seen_at may get before a request refreshes it (and
// slides its expiry): reads stay one SELECT, and an active session costs one UPDATE a minute.
const touchEvery = time.Minute

// UserBySession returns the account behind a live session token hash and slides its expiry to
// now+ttl, at most once every touchEvery (a second statement then). An expired or revoked session
// is ErrNotFound.
func (s *Store) UserBySession(ctx context.Context, tokenHash []byte, ttl time.Duration) (User, error) {
	var row struct {
		User
		LastSeenAt time.Time `db:"session_last_seen_at"`
	}
	err := s.hotGet(ctx, &row, `
		SELECT `+prefixed("u.", userColumns)+`, s.last_seen_at AS session_last_seen_at
		FROM user_sessions s JOIN users u ON u.id = s.user_id
		WHERE s.token_hash = $1 AND s.expires_at > now()`, tokenHash)
	if err != nil {
		return User{}, notFound(err, "user by session")
	}
	if time.Since(row.LastSeenAt) >= touchEvery {
		_, err = s.DB.ExecContext(ctx, `
			UPDATE user_sessions SET last_seen_at = now(), expires_at = now() + $2 * interval '1 second'
			WHERE token_hash = $1 AND expires_at > now()`, tokenHash, int64(ttl/time.Second))
		if err != nil {
			return User{}, notFound(err, "touch user session")
		}
	}
	return row.User, nil
}

// DeleteUserSession revokes one session (sign-out). Deleting an unknown token is not an error.
func (s *Store) DeleteUserSession(ctx context.Context, tokenHash []byte) error {
	_, err := s.DB.ExecContext(ctx, `DELETE FROM user_sessions WHERE token_hash = $1`, tokenHash)
	return notFound(err, "delete user session")
}

// DeleteExpiredSessions removes expired sign-ins and the expired guest sessions that own no
// conversation (a guest's conversations stay with their session, which the cascade would delete),
// and returns how many of each it removed. It is one idempotent statement: instances that run it
// at the same time only repeat each other's work.
func (s *Store) DeleteExpiredSessions(ctx context.Context) (users, guests int64, err error) {
	err = s.DB.QueryRowxContext(ctx, `
		WITH u AS (DELETE FROM user_sessions WHERE expires_at < now() RETURNING 1),
		     g AS (DELETE FROM guest_sessions gs WHERE gs.expires_at < now()
		             AND NOT EXISTS (SELECT 1 FROM chat_exchange e WHERE e.guest_session_id = gs.id) RETURNING 1)
		SELECT (SELECT count(*) FROM u), (SELECT count(*) FROM g)`).Scan(&users, &guests)
	return users, guests, notFound(err, "delete expired sessions")
}

// CreateGuestSession stores an anonymous visitor's session by the SHA-256 of its token and returns its id.
func (s *Store) CreateGuestSession(ctx context.Context, tokenHash []byte, expiresAt time.Time) (int64, error) {
	var id int64
	err := s.DB.GetContext(ctx, &id, `
		INSERT INTO guest_sessions (token_hash, expires_at) VALUES ($1, $2) RETURNING id`, tokenHash, expiresAt)
	return id, notFound(err, "create guest session")
}

// GuestSessionID returns the id of a live guest session by token hash, sliding its expiry to
// now+ttl at most once every touchEvery (like UserBySession).
func (s *Store) GuestSessionID(ctx context.Context, tokenHash []byte, ttl time.Duration) (int64, error) {
	var row struct {
		ID         int64     `db:"id"`
		LastSeenAt time.Time `db:"last_seen_at"`
	}
	err := s.DB.GetContext(ctx, &row, `
		SELECT id, last_seen_at FROM guest_sessions
		WHERE token_hash = $1 AND expires_at > now() AND adopted_by IS NULL`, tokenHash)
	if err != nil {
		return 0, notFound(err, "guest session")
	}
	if time.Since(row.LastSeenAt) >= touchEvery {
		_, err = s.DB.ExecContext(ctx, `
			UPDATE guest_sessions SET last_seen_at = now(), expires_at = now() + $2 * interval '1 second'
			WHERE id = $1`, row.ID, int64(ttl/time.Second))
		if err != nil {
			return 0, notFound(err, "touch guest session")
		}
	}
	return row.ID, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 { // do not cut a UTF-8 sequence
		n--
	}
	return s[:n]
}
