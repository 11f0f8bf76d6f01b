package db

import (
	"context"

	"parley/fault"
)

// ErrIdentityTaken is returned by LinkIdentity when the provider's account already signs in to
// another Parley account.
var ErrIdentityTaken = &fault.Error{Code: fault.Conflict,
	Message: "This single sign-on account is already linked to another Parley account."}

// UserByIdentity returns the account an OpenID Connect identity (issuer URL, subject) signs in to,
// or ErrNotFound, and notes the sign-in.
func (s *Store) UserByIdentity(ctx context.Context, issuer, subject string) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `WITH seen AS (
			UPDATE user_identities SET last_seen_at = now() WHERE issuer = $1 AND subject = $2 RETURNING user_id)
		SELECT `+prefixed("u.", userColumns)+` FROM users u JOIN seen ON seen.user_id = u.id`, issuer, subject)
	return u, notFound(err, "user by identity")
}

// LinkIdentity makes the identity sign in to userID from now on; an identity linked to another
// account is ErrIdentityTaken (linking it again to the same account changes nothing).
func (s *Store) LinkIdentity(ctx context.Context, issuer, subject string, userID int64, email string) error {
	res, err := s.DB.ExecContext(ctx, `INSERT INTO user_identities (issuer, subject, user_id, email) VALUES ($1, $2, $3, $4)
		ON CONFLICT (issuer, subject) DO UPDATE SET last_seen_at = now() WHERE user_identities.user_id = $3`,
		issuer, subject, userID, email)
	if err != nil {
		return notFound(err, "link identity")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrIdentityTaken
	}
	return nil
}

// HasIdentity reports whether the account signs in through an OpenID Connect provider.
func (s *Store) HasIdentity(ctx context.Context, userID int64) (bool, error) {
	var ok bool
	err := s.DB.GetContext(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM user_identities WHERE user_id = $1)`, userID)
	return ok, notFound(err, "has identity")
}

// SetAdmin makes the account an administrator or not (the provider's admin group decides).
func (s *Store) SetAdmin(ctx context.Context, userID int64, admin bool) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE users SET is_admin = $2, updated_at = now() WHERE id = $1 AND is_admin <> $2`, userID, admin)
	return notFound(err, "set admin")
}
