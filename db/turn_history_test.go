package db_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"parley/db"
	"parley/db/dbtest"
)

// historyOf builds a conversation of n turns whose answers are answer(i), the last one unanswered
// with a tool item stored before it, and returns its turns.
func historyOf(t *testing.T, store *db.Store, email string, n int, answer func(int) string) []db.Turn {
	t.Helper()
	ctx := context.Background()
	owner, first := startTurn(t, store, email)
	turns := []db.Turn{first}
	for i := 1; i < n; i++ {
		if err := writeFinal(ctx, store, turns[i-1].Assistant.ID, answer(i-1), db.StatusComplete, nil); err != nil {
			t.Fatal(err)
		}
		tr, err := store.StartTurn(ctx, db.NewTurn{UserID: owner.UserID, ExchangeID: first.Exchange.ID, Query: fmt.Sprintf("q%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		turns = append(turns, tr)
	}
	if _, err := store.WriteAnswer(ctx, db.AnswerWrite{ID: turns[n-1].Assistant.ID, Status: db.StatusStreaming, Insert: []db.Message{
		{Role: db.RoleFunctionCallOutput, Status: db.StatusComplete, ToolResult: `{"results":[]}`}}}); err != nil {
		t.Fatal(err)
	}
	return turns
}

// A turn reads the conversation's first question and its answer, and its latest questions and
// answers up to the answer (at most rows of them), not the whole conversation, and never an
// earlier turn's tool item.
func TestTurnHistoryReadsTheFirstAndTheLatestMessagesUpToTheAnswer(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	turns := historyOf(t, store, "history@example.com", 20, func(i int) string { return fmt.Sprintf("answer %d", i) })
	first, last := turns[0], turns[19].Assistant
	msgs, err := store.TurnHistory(ctx, first.Exchange.ID, last.ID, 6, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 8 || msgs[0].ID != first.User.ID || msgs[1].ID != first.Assistant.ID || msgs[7].ID != last.ID || msgs[6].ID != turns[19].User.ID || msgs[2].ID != turns[17].User.ID {
		t.Fatalf("%d messages: %+v", len(msgs), positions(msgs))
	}
	// An old answer (a retry) reads up to itself.
	old := turns[3].Assistant
	msgs, _ = store.TurnHistory(ctx, first.Exchange.ID, old.ID, 6, 0)
	if msgs[len(msgs)-1].ID != old.ID {
		t.Fatalf("history of an old answer ends at %v", positions(msgs))
	}
	msgs, _ = store.TurnHistory(ctx, first.Exchange.ID, last.ID, 100, 0)
	if len(msgs) != 40 { // the tool item is never sent back, so not read
		t.Fatalf("%d messages, want the 40 questions and answers", len(msgs))
	}
}

// Long answers cost the rows the budget can send, not the row limit: the latest questions and
// answers end with the one that takes the newer ones' text past the budget, and the first
// question and its answer still come first.
func TestTurnHistoryStopsAtTheBudget(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	turns := historyOf(t, store, "budget@example.com", 30, func(i int) string { return strings.Repeat("x", 1000) })
	first, last := turns[0], turns[29]
	// Newest first: the answer (0 bytes), q29 (3), answer 28 (1,000), q28 (3), answer 27 (1,000):
	// 1,006 bytes are newer than answer 27, which takes them past a budget of 1,500.
	msgs, err := store.TurnHistory(ctx, first.Exchange.ID, last.Assistant.ID, 1000, 1500)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 7 || msgs[0].ID != first.User.ID || msgs[1].ID != first.Assistant.ID || msgs[2].ID != turns[27].Assistant.ID || msgs[6].ID != last.Assistant.ID {
		t.Fatalf("%d messages: %+v", len(msgs), positions(msgs))
	}
}

// A long conversation of short messages, whose text never reaches the budget, reads its latest
// messages up to the row limit (a turn once failed there: "The conversation could not be read").
func TestTurnHistoryOfManyShortMessagesReadsUpToTheRowLimit(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	turns := historyOf(t, store, "short@example.com", 80, func(i int) string { return "ok" })
	msgs, err := store.TurnHistory(ctx, turns[0].Exchange.ID, turns[79].Assistant.ID, 1000, 24000)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 160 {
		t.Fatalf("%d messages, want all 160 questions and answers", len(msgs))
	}
}

func positions(msgs []db.Message) []int {
	var out []int
	for _, m := range msgs {
		out = append(out, m.Position)
	}
	return out
}
