package db_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"parley/db"
	"parley/db/dbtest"
)

// A model can send characters PostgreSQL cannot store in text or jsonb: NUL (JSON "\u0000") and
// bytes that are not UTF-8. Storing them must not fail the write, or the whole answer is lost:
// the text is kept without NUL, a run of invalid bytes becomes one U+FFFD, in the answer, its items and its
// metadata (an upstream's error message is quoted there).
func TestAnswerWithCharactersPostgreSQLRefusesIsStoredWithoutThem(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	_, turn := startTurn(t, store, "nul@example.com")
	lease := db.WithLease(ctx, db.Lease{Holder: "a/1", TTL: time.Hour})
	answer := turn.Assistant.ID
	if err := store.SetAnswer(lease, answer, "first\x00 draft", db.StatusStreaming, nil); err != nil {
		t.Fatalf("streaming write with NUL: %v", err)
	}
	meta, _ := json.Marshal(map[string]any{"error": map[string]string{"kind": "upstream_error", "message": "boom\x00 \\u0000 kept"}})
	_, err := store.WriteAnswer(db.WithClaimedLease(lease), db.AnswerWrite{ID: answer, Content: "before\x00after \xff\xfe end", Status: db.StatusFailed,
		Metadata: meta, Index: true,
		Insert: []db.Message{
			{Role: db.RoleReasoning, Content: "think\x00ing", Status: db.StatusComplete},
			{Role: db.RoleFunctionCall, Status: db.StatusComplete, ToolName: "search_workspace", ToolCallID: "c\x001", ToolArguments: "{\"query\":\"a\x00b\"}"},
			{Role: db.RoleFunctionCallOutput, Status: db.StatusComplete, ToolName: "search_workspace", ToolCallID: "c1", ToolResult: "res\x00ult"},
		}})
	if err != nil {
		t.Fatalf("final write with NUL and invalid UTF-8: %v", err)
	}
	msgs, err := store.ExchangeMessages(ctx, turn.Exchange.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Content+"|"+m.ToolCallID+"|"+m.ToolArguments+"|"+m.ToolResult)
		if m.ID == answer {
			if m.Status != db.StatusFailed {
				t.Errorf("answer status %s, want failed", m.Status)
			}
			if !strings.Contains(string(m.Metadata), `boom \\u0000 kept`) {
				t.Errorf("metadata %s, want the error message without NUL and its literal \\u0000 text kept", m.Metadata)
			}
		}
	}
	want := []string{"q|||", "thinking|||", "|c1|{\"query\":\"ab\"}|", "|c1||result", "beforeafter \uFFFD end|||"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("stored:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A page assistant's proposal quotes what the model wrote; a NUL in it must not fail the insert
// (jsonb refuses "\u0000") and lose the proposal.
func TestProposalWithANULCharacterIsStoredWithoutIt(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	owner, turn := startTurn(t, store, "proposal@example.com")
	page, err := store.CreatePage(ctx, owner.UserID, "Notes", "# Notes\n")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]string{"target_key": "notes", "content": "# Notes\n\nnew\x00 text\n"})
	p, err := store.InsertProposal(ctx, db.NewProposal{PageID: page.ID, MessageID: turn.Assistant.ID, Kind: "full_replacement", Body: body, SupersedeTarget: "*"})
	if err != nil {
		t.Fatalf("proposal with NUL: %v", err)
	}
	if strings.Contains(string(p.Body), `\u0000`) || !strings.Contains(string(p.Body), "new text") {
		t.Fatalf("stored proposal %s, want its text without NUL", p.Body)
	}
}

// Cleaning a NUL out of an answer's metadata must keep the rest of it as the upstream sent it: an
// integer past 2^53 (a provider's id, a token count) is stored with all its digits.
func TestMetadataCleanedOfNULKeepsLargeIntegersExact(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	_, turn := startTurn(t, store, "nul-number@example.com")
	meta := json.RawMessage(`{"upstream_id": 9007199254740993, "message": "a\u0000b"}`)
	if err := store.SetAnswer(ctx, turn.Assistant.ID, "done", db.StatusComplete, meta); err != nil {
		t.Fatalf("write with NUL in metadata: %v", err)
	}
	m, err := store.MessageByID(ctx, turn.Exchange.ID, turn.Assistant.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m.Metadata), "9007199254740993") || strings.Contains(string(m.Metadata), `\u0000`) {
		t.Errorf("metadata %s, want upstream_id 9007199254740993 kept and the NUL removed", m.Metadata)
	}
}
