package db

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"parley/migrations"
)

// migrator returns a goose provider over the embedded migrations. It holds a PostgreSQL advisory
// lock while it works, so several instances starting together migrate once.
func (s *Store) migrator(logger *slog.Logger) (*goose.Provider, error) {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, fmt.Errorf("db: migration lock: %w", err)
	}
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return goose.NewProvider(goose.DialectPostgres, s.DB.DB, migrations.FS,
		goose.WithSessionLocker(locker), goose.WithSlog(logger))
}

// MigrateUp applies every pending migration and returns the number applied.
func (s *Store) MigrateUp(ctx context.Context, logger *slog.Logger) (int, error) {
	p, err := s.migrator(logger)
	if err != nil {
		return 0, err
	}
	results, err := p.Up(ctx)
	if err != nil {
		return len(results), fmt.Errorf("db: migrate up: %w", err)
	}
	return len(results), nil
}

// MigrateDown rolls back the newest applied migration.
func (s *Store) MigrateDown(ctx context.Context, logger *slog.Logger) error {
	p, err := s.migrator(logger)
	if err != nil {
		return err
	}
	if _, err := p.Down(ctx); err != nil {
		return fmt.Errorf("db: migrate down: %w", err)
	}
	return nil
}

// MigrationStatus is one migration's state: its version, file and whether it is applied.
type MigrationStatus struct {
	Version int64
	Source  string
	Applied bool
}

// MigrateStatus lists every known migration in order.
func (s *Store) MigrateStatus(ctx context.Context) ([]MigrationStatus, error) {
	p, err := s.migrator(nil)
	if err != nil {
		return nil, err
	}
	all, err := p.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: migrate status: %w", err)
	}
	out := make([]MigrationStatus, len(all))
	for i, m := range all {
		out[i] = MigrationStatus{Version: m.Source.Version, Source: m.Source.Path, Applied: m.State == goose.StateApplied}
	}
	return out, nil
}

// MigrationsCurrent reports whether every embedded migration is applied (for /readyz).
func (s *Store) MigrationsCurrent(ctx context.Context) (bool, error) {
	p, err := s.migrator(nil)
	if err != nil {
		return false, err
	}
	current, target, err := p.GetVersions(ctx) // takes no lock, so readiness never waits on a migration
	if err != nil {
		return false, fmt.Errorf("db: migration versions: %w", err)
	}
	return current >= target, nil
}
