package db_test

import (
	"context"
	"testing"

	"parley/db/dbtest"
)

// Every migration must roll back cleanly and apply again: up → down (to nothing) → up.
func TestMigrationsUpDownUp(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t) // already migrated up from the template
	status, err := store.MigrateStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(status) == 0 {
		t.Fatal("no migrations found")
	}
	for _, m := range status {
		if !m.Applied {
			t.Fatalf("migration %d not applied in a fresh test database", m.Version)
		}
	}
	for range status {
		if err := store.MigrateDown(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	var tables int
	if err := store.DB.GetContext(ctx, &tables, `SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'goose_db_version'`); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Fatalf("after migrating all the way down, %d tables remain", tables)
	}
	if current, _ := store.MigrationsCurrent(ctx); current {
		t.Fatal("MigrationsCurrent = true with every migration rolled back")
	}
	n, err := store.MigrateUp(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(status) {
		t.Fatalf("up applied %d migrations, want %d", n, len(status))
	}
	if current, err := store.MigrationsCurrent(ctx); err != nil || !current {
		t.Fatalf("MigrationsCurrent = %v, %v after up", current, err)
	}
}
