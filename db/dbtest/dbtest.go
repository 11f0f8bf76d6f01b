// Package dbtest gives each test a fresh PostgreSQL database, cloned from a template that is
// migrated once per schema (CREATE DATABASE … TEMPLATE is a file copy: tens of milliseconds).
//
// It needs PARLEY_TEST_DATABASE_URL: a DSN of a role that may create databases. `make test` starts
// the private cluster and sets it; without it tests fail with that instruction (never skip).
package dbtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq"

	"parley/db"
	"parley/migrations"
)

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
	counter      atomic.Int64
)

// AdminURL returns PARLEY_TEST_DATABASE_URL or fails the test with how to set it.
func AdminURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("PARLEY_TEST_DATABASE_URL")
	if u == "" {
		t.Fatal("PARLEY_TEST_DATABASE_URL is not set: run the tests with `make test`, which starts a private PostgreSQL")
	}
	return u
}

// URL creates a fresh, migrated database for this test, drops it when the test ends, and returns
// its DSN.
func URL(t testing.TB) string {
	t.Helper()
	admin := AdminURL(t)
	templateOnce.Do(func() { templateName, templateErr = ensureTemplate(admin) })
	if templateErr != nil {
		t.Fatalf("dbtest: template database: %v", templateErr)
	}
	name := fmt.Sprintf("parley_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6, counter.Add(1))
	conn, err := sqlx.Open("postgres", admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Exec(`CREATE DATABASE ` + name + ` TEMPLATE ` + templateName); err != nil {
		t.Fatalf("dbtest: create %s: %v", name, err)
	}
	t.Cleanup(func() {
		c, err := sqlx.Open("postgres", admin)
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = c.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
	})
	return withDatabase(admin, name)
}

// Open returns a Store on a fresh, migrated database for this test (see URL).
func Open(t testing.TB) *db.Store {
	t.Helper()
	store, err := db.Open(context.Background(), URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// ensureTemplate creates and migrates parley_tmpl_<hash of the migrations> once; concurrent test
// binaries wait on an advisory lock, so exactly one of them builds it.
func ensureTemplate(admin string) (string, error) {
	name := "parley_tmpl_" + migrationsHash()
	conn, err := sqlx.Open("postgres", admin)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	ctx := context.Background()
	c, err := conn.Connx(ctx) // one connection: advisory locks belong to a session
	if err != nil {
		return "", err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `SELECT pg_advisory_lock(7263510)`); err != nil {
		return "", err
	}
	defer c.ExecContext(ctx, `SELECT pg_advisory_unlock(7263510)`)
	var exists bool
	if err := c.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_building"
	_, _ = c.ExecContext(ctx, `DROP DATABASE IF EXISTS `+building+` WITH (FORCE)`)
	if _, err := c.ExecContext(ctx, `CREATE DATABASE `+building); err != nil {
		return "", err
	}
	store, err := db.Open(ctx, withDatabase(admin, building))
	if err != nil {
		return "", err
	}
	_, err = store.MigrateUp(ctx, nil)
	store.Close()
	if err != nil {
		return "", err
	}
	// Renaming only once it is complete means a crash mid-build never leaves a half template.
	if _, err := c.ExecContext(ctx, `ALTER DATABASE `+building+` RENAME TO `+name); err != nil {
		return "", err
	}
	return name, nil
}

// migrationsHash is the first 12 hex digits of the SHA-256 over every migration file, so a new or
// changed migration gets a new template.
func migrationsHash() string {
	h := sha256.New()
	_ = fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.FS, path)
		h.Write([]byte(path))
		h.Write(b)
		return err
	})
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// withDatabase returns the DSN with its database name replaced.
func withDatabase(dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		panic(fmt.Sprintf("dbtest: PARLEY_TEST_DATABASE_URL must be a postgres:// URL: %v", err))
	}
	u.Path = "/" + name
	return u.String()
}
