package dbtest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// Seed is a fresh copy of a seeded database: its DSN, how long the seeding took when it ran, and
// whether this run reused an earlier run's seed.
type Seed struct {
	DSN    string
	Took   time.Duration
	Reused bool
}

// Seeded returns a fresh copy, dropped when the test ends, of a database that seed filled once. The seeded database stays in the cluster as template parley_seed_<name>_<version>_<hash
// of the migrations>, so later runs (of any test binary) skip the seeding: the copy is a file copy
// (CREATE DATABASE … STRATEGY FILE_COPY), seconds for gigabytes, and keeps the planner statistics and
// visibility maps seed left. seed gets the DSN of a fresh migrated database and must have closed
// every connection to it when it returns; it runs under an advisory lock, so concurrent binaries
// seed once. Bump version when what seed writes changes. Building a new template drops the older
// ones of the same name, so one copy of each seeded instance stays on disk.
func Seeded(t testing.TB, name string, version int, seed func(dsn string)) Seed {
	t.Helper()
	admin := AdminURL(t)
	templateOnce.Do(func() { templateName, templateErr = ensureTemplate(admin) })
	if templateErr != nil {
		t.Fatalf("dbtest: template database: %v", templateErr)
	}
	prefix := fmt.Sprintf("parley_seed_%s_", name)
	tmpl := fmt.Sprintf("%s%d_%s", prefix, version, migrationsHash())
	conn, err := sqlx.Open("postgres", admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	c, err := conn.Connx(ctx) // one connection: advisory locks belong to a session
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `SELECT pg_advisory_lock(7263511)`); err != nil {
		t.Fatal(err)
	}
	defer c.ExecContext(ctx, `SELECT pg_advisory_unlock(7263511)`)
	var exists bool
	if err := c.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, tmpl); err != nil {
		t.Fatal(err)
	}
	if !exists {
		var stale []string
		if err := c.SelectContext(ctx, &stale, `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, prefix); err != nil {
			t.Fatal(err)
		}
		for _, d := range stale {
			if _, err := c.ExecContext(ctx, `DROP DATABASE IF EXISTS `+d+` WITH (FORCE)`); err != nil {
				t.Fatalf("dbtest: drop stale seed %s: %v", d, err)
			}
		}
		building := tmpl + "_building"
		if _, err := c.ExecContext(ctx, `CREATE DATABASE `+building+` TEMPLATE `+templateName); err != nil {
			t.Fatalf("dbtest: create %s: %v", building, err)
		}
		started := time.Now()
		seed(withDatabase(admin, building))
		// Renaming only once seeding is complete means a failed run never leaves a half seed.
		if _, err := c.ExecContext(ctx, `ALTER DATABASE `+building+` RENAME TO `+tmpl); err != nil {
			t.Fatalf("dbtest: keep seed %s: %v", tmpl, err)
		}
		if _, err := c.ExecContext(ctx, `COMMENT ON DATABASE `+tmpl+` IS '`+time.Since(started).Round(time.Second).String()+`'`); err != nil {
			t.Fatal(err)
		}
	}
	out := Seed{Reused: exists}
	var took string
	if err := c.GetContext(ctx, &took, `SELECT coalesce(shobj_description(oid, 'pg_database'), '') FROM pg_database WHERE datname = $1`, tmpl); err != nil {
		t.Fatal(err)
	}
	out.Took, _ = time.ParseDuration(took)
	db := fmt.Sprintf("parley_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6, counter.Add(1))
	if _, err := c.ExecContext(ctx, `CREATE DATABASE `+db+` TEMPLATE `+tmpl+` STRATEGY FILE_COPY`); err != nil {
		t.Fatalf("dbtest: copy %s: %v", tmpl, err)
	}
	t.Cleanup(func() {
		c, err := sqlx.Open("postgres", admin)
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = c.Exec(`DROP DATABASE IF EXISTS ` + db + ` WITH (FORCE)`)
	})
	out.DSN = withDatabase(admin, db)
	return out
}
