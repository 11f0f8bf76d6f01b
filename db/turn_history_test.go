package db_test

import (
	"context"
	"fmt"
	"testing"

	"parley/db"
	"parley/db/dbtest"
)

// A turn reads the conversation's first question and its latest questions and answers up to the
// answer, not the whole conversation, and says when it read all of them.
func TestTurnHistoryReadsTheFirstAndTheLatestMessagesUpToTheAnswer(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	owner, first := startTurn(t, store, "history@example.com")
	turns := []db.Turn{first}
	for i := 1; i < 20; i++ {
		if err := writeFinal(ctx, store, turns[i-1].Assistant.ID, fmt.Sprintf("answer %d", i-1), db.StatusComplete, nil); err != nil {
			t.Fatal(err)
		}
		tr, err := store.StartTurn(ctx, db.NewTurn{UserID: owner.UserID, ExchangeID: first.Exchange.ID, Query: fmt.Sprintf("q%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		turns = append(turns, tr)
	}
	last := turns[19].Assistant
	if _, err := store.WriteAnswer(ctx, db.AnswerWrite{ID: last.ID, Status: db.StatusStreaming, Insert: []db.Message{
		{Role: db.RoleFunctionCallOutput, Status: db.StatusComplete, ToolResult: `{"results":[]}`}}}); err != nil {
		t.Fatal(err)
	}
	msgs, all, err := store.TurnHistory(ctx, first.Exchange.ID, last.ID, 6)
	if err != nil {
		t.Fatal(err)
	}
	if all || len(msgs) != 7 || msgs[0].ID != first.User.ID || msgs[6].ID != last.ID || msgs[5].ID != turns[19].User.ID {
		t.Fatalf("all %v, %d messages: %+v", all, len(msgs), positions(msgs))
	}
	// An old answer (a retry) reads up to itself.
	old := turns[3].Assistant
	msgs, _, _ = store.TurnHistory(ctx, first.Exchange.ID, old.ID, 6)
	if msgs[len(msgs)-1].ID != old.ID {
		t.Fatalf("history of an old answer ends at %v", positions(msgs))
	}
	msgs, all, _ = store.TurnHistory(ctx, first.Exchange.ID, last.ID, 100)
	if !all || len(msgs) != 40 { // the tool item is never sent back, so not read
		t.Fatalf("all %v, %d messages, want the 40 questions and answers", all, len(msgs))
	}
}

func positions(msgs []db.Message) []int {
	var out []int
	for _, m := range msgs {
		out = append(out, m.Position)
	}
	return out
}
