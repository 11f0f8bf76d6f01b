package db_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"parley/db"
	"parley/db/dbtest"
)

// writeFinal is a generation's final write of an answer: text, status, metadata and search index.
func writeFinal(ctx context.Context, store *db.Store, id int64, content, status string, meta json.RawMessage) error {
	_, err := store.WriteAnswer(ctx, db.AnswerWrite{ID: id, Content: content, Status: status, Metadata: meta, Index: true})
	return err
}

// One write stores the answer's text with new items before it, in order, and the outcome of an
// item stored earlier; the answer (and a later turn) move down past the new items.
func TestAnswerWriteStoresItsItemsBeforeTheAnswerInOneStatement(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	owner, turn := startTurn(t, store, "items@example.com")
	lease := db.WithLease(ctx, db.Lease{Holder: "a/1", TTL: time.Hour})
	answer := turn.Assistant.ID
	ids, err := store.WriteAnswer(lease, db.AnswerWrite{ID: answer, Content: "Let me look.", Status: db.StatusStreaming, Insert: []db.Message{
		{Role: db.RoleReasoning, Content: "they ask about gardens", Status: db.StatusComplete},
		{Role: db.RoleFunctionCall, Status: db.StatusStreaming, ToolName: "search_workspace", ToolCallID: "c1", ToolArguments: `{"query":"gardens"}`},
	}})
	if err != nil || len(ids) != 2 {
		t.Fatalf("first write: ids %v, %v", ids, err)
	}
	ms := 7
	out, err := store.WriteAnswer(db.WithClaimedLease(lease), db.AnswerWrite{ID: answer, Content: "Let me look. Found it.", Status: db.StatusComplete,
		Metadata: json.RawMessage(`{"provider":"openai"}`), Index: true, // offline answers are not searched
		Update: []db.Message{{ID: ids[1], Status: db.StatusComplete, DurationMS: &ms}},
		Insert: []db.Message{{Role: db.RoleFunctionCallOutput, Status: db.StatusComplete, ToolName: "search_workspace", ToolCallID: "c1", ToolResult: `{"results":[]}`, DurationMS: &ms}},
	})
	if err != nil || len(out) != 1 {
		t.Fatalf("final write: ids %v, %v", out, err)
	}
	msgs, err := store.ExchangeMessages(ctx, turn.Exchange.ID)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for i, m := range msgs {
		roles = append(roles, m.Role)
		if m.Position != i+1 {
			t.Errorf("%s at position %d, want %d", m.Role, m.Position, i+1)
		}
	}
	want := []string{db.RoleUser, db.RoleReasoning, db.RoleFunctionCall, db.RoleFunctionCallOutput, db.RoleAssistant}
	if len(roles) != len(want) {
		t.Fatalf("roles %v, want %v", roles, want)
	}
	for i := range want {
		if roles[i] != want[i] {
			t.Fatalf("roles %v, want %v", roles, want)
		}
	}
	call, final := msgs[2], msgs[4]
	if call.Status != db.StatusComplete || call.DurationMS == nil || *call.DurationMS != 7 || call.ToolArguments != `{"query":"gardens"}` {
		t.Errorf("call stored as %+v", call)
	}
	if msgs[3].ToolResult != `{"results":[]}` || msgs[3].ParentID == nil || *msgs[3].ParentID != answer {
		t.Errorf("output stored as %+v", msgs[3])
	}
	if final.Content != "Let me look. Found it." || final.Status != db.StatusComplete || string(final.Metadata) == "{}" {
		t.Errorf("answer stored as %q %s %s", final.Content, final.Status, final.Metadata)
	}
	hits, err := store.SearchWorkspace(ctx, owner.UserID, "found", 0, 5)
	if err != nil || len(hits) != 1 {
		t.Errorf("the final write is searchable: %v, %v", hits, err)
	}
}

// A generation that lost its answer writes nothing at all: not its text, not its items.
func TestAnswerWriteUnderALostLeaseWritesNothing(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	_, turn := startTurn(t, store, "lost@example.com")
	if err := store.SetAnswer(db.WithLease(ctx, db.Lease{Holder: "a/1", TTL: time.Hour}), turn.Assistant.ID, "mine", db.StatusStreaming, nil); err != nil {
		t.Fatal(err)
	}
	theirs := db.WithClaimedLease(db.WithLease(ctx, db.Lease{Holder: "b/1", TTL: time.Hour}))
	_, err := store.WriteAnswer(theirs, db.AnswerWrite{ID: turn.Assistant.ID, Content: "theirs", Status: db.StatusComplete, Index: true,
		Insert: []db.Message{{Role: db.RoleReasoning, Content: "x", Status: db.StatusComplete}}})
	if !errors.Is(err, db.ErrLeaseLost) {
		t.Fatalf("write under another's lease: %v, want ErrLeaseLost", err)
	}
	msgs, _ := store.ExchangeMessages(ctx, turn.Exchange.ID)
	if len(msgs) != 2 || msgs[1].Content != "mine" || msgs[1].Position != 2 {
		t.Fatalf("messages after the refused write: %+v", msgs)
	}
}

// A follow-up stores its pending answer already claimed by the lease it was given, and a turn
// sent while an answer is unfinished is refused, storing nothing.
func TestFollowUpTurnIsStoredClaimedAndRefusedWhileAnAnswerIsUnfinished(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	owner, first := startTurn(t, store, "follow@example.com")
	if err := writeFinal(ctx, store, first.Assistant.ID, "done", db.StatusComplete, nil); err != nil {
		t.Fatal(err)
	}
	in := db.NewTurn{UserID: owner.UserID, ExchangeID: first.Exchange.ID, Query: "and then?", IdempotencyKey: "k2",
		Lease: db.Lease{Holder: "a/7", TTL: time.Hour}}
	turn, err := store.StartTurn(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if turn.Turns != 2 || turn.User.Position != 3 || turn.Assistant.Position != 4 || turn.Exchange.ID != first.Exchange.ID ||
		turn.User.ParentID == nil || *turn.User.ParentID != first.Assistant.ID {
		t.Fatalf("follow-up stored as %+v", turn)
	}
	// Claimed: a write under another lease is refused, one under its own needs no claim.
	if err := store.SetAnswer(db.WithLease(ctx, db.Lease{Holder: "b/1", TTL: time.Hour}), turn.Assistant.ID, "x", db.StatusStreaming, nil); !errors.Is(err, db.ErrLeaseLost) {
		t.Fatalf("another generation's claim of a claimed answer: %v", err)
	}
	if err := store.SetAnswer(db.WithClaimedLease(db.WithLease(ctx, in.Lease)), turn.Assistant.ID, "y", db.StatusStreaming, nil); err != nil {
		t.Fatalf("its own generation's write: %v", err)
	}
	again, err := store.StartTurn(ctx, in) // a double submit replays
	if err != nil || !again.Replayed || again.Assistant.ID != turn.Assistant.ID {
		t.Fatalf("replay: %+v, %v", again, err)
	}
	in.IdempotencyKey, in.Query = "k3", "one more"
	if _, err := store.StartTurn(ctx, in); !errors.Is(err, db.ErrBusy) {
		t.Fatalf("a turn while the answer is unfinished: %v, want ErrBusy", err)
	}
	msgs, _ := store.ExchangeMessages(ctx, first.Exchange.ID)
	if len(msgs) != 4 {
		t.Fatalf("%d messages after the refused turn, want 4", len(msgs))
	}
}

// Concurrent follow-ups to one conversation take turns: one is stored, every other is ErrBusy,
// and positions stay distinct.
func TestConcurrentFollowUpsStoreOneTurn(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	owner, first := startTurn(t, store, "race@example.com")
	if err := writeFinal(ctx, store, first.Assistant.ID, "done", db.StatusComplete, nil); err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = store.StartTurn(ctx, db.NewTurn{UserID: owner.UserID, ExchangeID: first.Exchange.ID,
				Query: "race", IdempotencyKey: "r" + string(rune('a'+i))})
		}()
	}
	wg.Wait()
	stored := 0
	for _, err := range errs {
		switch {
		case err == nil:
			stored++
		case !errors.Is(err, db.ErrBusy):
			t.Errorf("unexpected error: %v", err)
		}
	}
	msgs, _ := store.ExchangeMessages(ctx, first.Exchange.ID)
	if stored != 1 || len(msgs) != 4 {
		t.Fatalf("%d turns stored, %d messages; want 1 and 4", stored, len(msgs))
	}
	seen := map[int]bool{}
	for _, m := range msgs {
		if seen[m.Position] {
			t.Fatalf("two messages at position %d", m.Position)
		}
		seen[m.Position] = true
	}
}
