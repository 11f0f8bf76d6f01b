package handlers_test

import (
	"strings"
	"testing"
	"time"

	"parley/config"
	"parley/db/dbtest"
)

// A signed-in request reads its session with one SELECT; last_seen_at and the sliding expiry are
// written at most once a minute, not on every request.
func TestSessionLastSeenIsWrittenAtMostOnceAMinute(t *testing.T) {
	var log *dbtest.StatementLog
	app, c := signedIn(t, func(cfg *config.Config) { log = dbtest.LogStatements(t, cfg.DatabaseURL) })
	touches := func(do func()) int {
		mark := log.Mark()
		do()
		n := 0
		for _, s := range log.Since(mark) {
			if strings.Contains(s.Text, "UPDATE user_sessions") {
				n++
			}
		}
		return n
	}
	if n := touches(func() { c.Get("/chat"); c.Get("/chat") }); n != 0 {
		t.Fatalf("two requests right after sign-in wrote the session %d times, want 0", n)
	}
	var before time.Time
	if _, err := app.Store.DB.Exec(`UPDATE user_sessions SET last_seen_at = now() - interval '2 minutes', expires_at = now() + interval '5 minutes'`); err != nil {
		t.Fatal(err)
	}
	_ = app.Store.DB.Get(&before, `SELECT expires_at FROM user_sessions`)
	if n := touches(func() { c.Get("/chat"); c.Get("/chat") }); n != 1 {
		t.Fatalf("two requests a minute after the last write wrote the session %d times, want 1", n)
	}
	var after time.Time
	_ = app.Store.DB.Get(&after, `SELECT expires_at FROM user_sessions`)
	if !after.After(before.Add(30 * time.Minute)) {
		t.Fatalf("expiry %s did not slide to now+ttl (was %s)", after, before)
	}
}
