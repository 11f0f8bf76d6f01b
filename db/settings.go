package db

import (
	"context"
	"database/sql"
	"errors"
)

// FloatingWidgetAgent is the identifier of the agent behind the floating chat button ("" = off),
// an instance-wide admin setting.
func (s *Store) FloatingWidgetAgent(ctx context.Context) (string, error) {
	var id string
	err := s.DB.GetContext(ctx, &id, `SELECT coalesce(value->>'agent', '') FROM app_settings WHERE name = 'floating_widget'`)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, notFound(err, "floating widget")
}

// SetFloatingWidgetAgent stores the floating chat button's agent identifier ("" turns it off).
func (s *Store) SetFloatingWidgetAgent(ctx context.Context, identifier string) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO app_settings (name, value) VALUES ('floating_widget', jsonb_build_object('agent', $1::text))
		ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = now()`, identifier)
	return notFound(err, "set floating widget")
}
