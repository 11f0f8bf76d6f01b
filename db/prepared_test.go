package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"parley/db/dbtest"
)

// A turn's hot statements run as named prepared statements: on one connection the exchange read
// is prepared once, planned custom five times, and from then on PostgreSQL reuses its generic
// plan (pg_prepared_statements counts them). SetPrepared(false) prepares nothing.
func TestTurnStatementsArePreparedAndReuseAGenericPlan(t *testing.T) {
	ctx := context.Background()
	for _, on := range []bool{true, false} {
		store := dbtest.Open(t)
		store.SetPrepared(on)
		store.DB.SetMaxOpenConns(1) // the statements and pg_prepared_statements share one session
		owner, turn := startTurn(t, store, "prepared@example.com")
		for range 8 {
			if _, err := store.OwnerExchange(ctx, owner, turn.Exchange.ID); err != nil {
				t.Fatal(err)
			}
		}
		var plans []struct {
			Generic int64 `db:"generic_plans"`
			Custom  int64 `db:"custom_plans"`
		}
		err := store.DB.Select(&plans, `SELECT generic_plans, custom_plans FROM pg_prepared_statements
			WHERE statement LIKE '%FROM chat_exchange e%WHERE e.id = $1 AND (e.user_id = $2 OR e.guest_session_id = $3)%'`)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !on && len(plans) != 0:
			t.Fatalf("prepared statements off: %d prepared exchange reads, want none", len(plans))
		case on && len(plans) != 1:
			t.Fatalf("%d prepared exchange reads on the connection, want 1 (prepared once)", len(plans))
		case on && (plans[0].Custom > 5 || plans[0].Generic < 3):
			t.Fatalf("8 exchange reads: %d custom and %d generic plans, want the generic plan from the sixth on", plans[0].Custom, plans[0].Generic)
		}
	}
}

// The search tool's statement is prepared too, and PostgreSQL (plan_cache_mode auto) moves to
// its generic plan whatever the words: eight searches, alternately for a word in every
// conversation and one in none, plan it custom at most five times.
func TestSearchToolStatementsReuseAGenericPlan(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	store.DB.SetMaxOpenConns(1)
	f := newSearchFixture(t, store, "generic@example.com")
	now := time.Now()
	for i := range 12 {
		f.conversation(fmt.Sprintf("Note %d", i), 0, now.Add(-time.Duration(i)*time.Hour), "about quinces", "a plain answer")
	}
	if _, err := store.CreatePage(ctx, f.user, "Quinces", "Quinces keep for months."); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		word := []string{"quinces", "zanzibar"}[i%2]
		hits, err := store.SearchWorkspace(ctx, f.user, word, 0, 5)
		if err != nil || (word == "quinces") != (len(hits) == 5) {
			t.Fatalf("search %q: %d hits, %v", word, len(hits), err)
		}
	}
	var plans []struct {
		Statement string `db:"statement"`
		Generic   int64  `db:"generic_plans"`
		Custom    int64  `db:"custom_plans"`
	}
	if err := store.DB.Select(&plans, `SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements
		WHERE statement LIKE '%websearch_to_tsquery%'`); err != nil {
		t.Fatal(err)
	}
	if len(plans) != 1 { // pages and conversations together; no word common enough for the second
		t.Fatalf("%d prepared search statements, want 1", len(plans))
	}
	for _, p := range plans {
		if p.Custom > 5 || p.Generic < 3 {
			t.Errorf("8 searches: %d custom and %d generic plans of\n%s\nwant the generic plan from the sixth on", p.Custom, p.Generic, p.Statement)
		}
	}
}
