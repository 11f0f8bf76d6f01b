package db

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jmoiron/sqlx"

	"parley/fault"
)

// User is one account row.
type User struct {
	ID           int64     `db:"id"`
	Email        string    `db:"email"`
	DisplayName  string    `db:"display_name"`
	PasswordHash string    `db:"password_hash"`
	IsAdmin      bool      `db:"is_admin"`
	CreatedAt    time.Time `db:"created_at"`
	// Preferences is a JSON object of UI settings, e.g. {"show_tools": false}.
	Preferences json.RawMessage `db:"preferences"`
}

// ShowTools reports the "Tools" toggle of the chat page (shown unless turned off).
func (u User) ShowTools() bool {
	var p struct {
		ShowTools *bool `json:"show_tools"`
	}
	_ = json.Unmarshal(u.Preferences, &p)
	return p.ShowTools == nil || *p.ShowTools
}

// SetShowTools stores the user's "Tools" toggle.
func (s *Store) SetShowTools(ctx context.Context, userID int64, show bool) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE users SET preferences = preferences || jsonb_build_object('show_tools', $2::boolean),
		updated_at = now() WHERE id = $1`, userID, show)
	return notFound(err, "set show tools")
}

// PageSideWidth is the width in CSS pixels the person gave the page editor's side panel (0: never
// set, the editor's default of 40%).
func (u User) PageSideWidth() int {
	var p struct {
		Width int `json:"page_side_width"`
	}
	_ = json.Unmarshal(u.Preferences, &p)
	return max(p.Width, 0)
}

// SetPageSideWidth stores the width (CSS pixels, checked by the caller) of the page editor's side
// panel.
func (s *Store) SetPageSideWidth(ctx context.Context, userID int64, width int) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE users SET preferences = preferences || jsonb_build_object('page_side_width', $2::int),
		updated_at = now() WHERE id = $1`, userID, width)
	return notFound(err, "set page side width")
}

// ErrEmailTaken is returned by CreateUser when an account already uses the email (case-insensitive).
var ErrEmailTaken = fault.Field("email", "An account with this email already exists. Sign in instead.")

const userColumns = `id, email, display_name, password_hash, is_admin, created_at, preferences`

// CreateUser inserts an account. The first account ever created is an admin; a lock on the users
// table makes "first" exact when two sign-ups race.
func (s *Store) CreateUser(ctx context.Context, email, displayName, passwordHash string) (User, error) {
	var u User
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return err
		}
		return tx.GetContext(ctx, &u, `
			INSERT INTO users (email, display_name, password_hash, is_admin)
			VALUES ($1, $2, $3, NOT EXISTS (SELECT 1 FROM users))
			RETURNING `+userColumns, email, displayName, passwordHash)
	})
	if isUniqueViolation(err, "users_email_key") {
		return User{}, ErrEmailTaken
	}
	return u, notFound(err, "create user")
}

// UserByEmail finds an account by email, ignoring case.
func (s *Store) UserByEmail(ctx context.Context, email string) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `SELECT `+userColumns+` FROM users WHERE lower(email) = lower($1)`, email)
	return u, notFound(err, "user by email")
}

// UserByID finds an account by id.
func (s *Store) UserByID(ctx context.Context, id int64) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `SELECT `+userColumns+` FROM users WHERE id = $1`, id)
	return u, notFound(err, "user by id")
}

// HasUsers reports whether any account exists (start-up says "sign up" only before the first).
func (s *Store) HasUsers(ctx context.Context) (bool, error) {
	var exists bool
	err := s.DB.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM users)`)
	return exists, err
}
