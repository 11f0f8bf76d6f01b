package db_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"parley/db"
	"parley/db/dbtest"
)

// A final answer of distinct words too many for one tsvector (PostgreSQL's 1 MB limit) is stored
// whole, and its opening words are searchable.
func TestLongAnswerOfDistinctWordsIsStoredWholeAndSearchable(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	u, _ := store.CreateUser(ctx, "a@example.com", "A", "hash")
	turn, err := store.StartTurn(ctx, db.NewTurn{UserID: u.ID, Title: "long", Query: "write a lot"})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 0; b.Len() < 990_000; i++ {
		fmt.Fprintf(&b, "zq%08dxword%d ", i*7919, i)
	}
	if err := writeFinal(ctx, store, turn.Assistant.ID, b.String(), db.StatusComplete, nil); err != nil {
		t.Fatalf("final write: %v", err)
	}
	var n int
	if err := store.DB.Get(&n, `SELECT length(content) FROM chat_message WHERE id = $1`, turn.Assistant.ID); err != nil || n != b.Len() {
		t.Fatalf("stored %d characters (%v), want %d", n, err, b.Len())
	}
	asking, _ := store.StartTurn(ctx, db.NewTurn{UserID: u.ID, Title: "q", Query: "where?"})
	if hits, err := store.SearchWorkspace(ctx, u.ID, "zq00000000xword0", asking.Exchange.ID, 5); err != nil || len(hits) != 1 {
		t.Fatalf("hits %+v (%v), want the long answer's conversation", hits, err)
	}
}
