package db_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"parley/db"
	"parley/db/dbtest"
)

func TestFirstUserIsAdminAndEmailIsUniqueIgnoringCase(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	first, err := store.CreateUser(ctx, "Ada@example.com", "Ada", "hash")
	if err != nil {
		t.Fatal(err)
	}
	second, err := store.CreateUser(ctx, "bob@example.com", "Bob", "hash")
	if err != nil {
		t.Fatal(err)
	}
	if !first.IsAdmin || second.IsAdmin {
		t.Fatalf("admin flags = %v, %v; want true, false", first.IsAdmin, second.IsAdmin)
	}
	if _, err := store.CreateUser(ctx, "ada@EXAMPLE.com", "Other", "hash"); !errors.Is(err, db.ErrEmailTaken) {
		t.Fatalf("duplicate email: err = %v, want ErrEmailTaken", err)
	}
	got, err := store.UserByEmail(ctx, "ADA@example.com")
	if err != nil || got.ID != first.ID {
		t.Fatalf("UserByEmail = %v, %v", got.ID, err)
	}
}

func TestRevokedAndExpiredSessionsDoNotAuthenticate(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	u, err := store.CreateUser(ctx, "a@example.com", "A", "hash")
	if err != nil {
		t.Fatal(err)
	}
	live, expired := []byte("live-token-hash"), []byte("expired-token-hash")
	if err := store.CreateUserSession(ctx, live, u.ID, "ua", "127.0.0.1", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := store.CreateUserSession(ctx, expired, u.ID, "ua", "127.0.0.1", time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if got, err := store.UserBySession(ctx, live, time.Hour); err != nil || got.ID != u.ID {
		t.Fatalf("live session: %v, %v", got.ID, err)
	}
	if _, err := store.UserBySession(ctx, expired, time.Hour); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("expired session: err = %v, want ErrNotFound", err)
	}
	if err := store.DeleteUserSession(ctx, live); err != nil {
		t.Fatal(err)
	}
	if _, err := store.UserBySession(ctx, live, time.Hour); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("revoked session: err = %v, want ErrNotFound", err)
	}
}

func TestServerSecretIsCreatedOnceAndKept(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	a, err := store.ServerSecret(ctx, "k", 32)
	if err != nil {
		t.Fatal(err)
	}
	b, err := store.ServerSecret(ctx, "k", 32)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 32 || string(a) != string(b) {
		t.Fatalf("secret changed between calls or has length %d", len(a))
	}
}

func TestRestartAnswerClearsTheFailedAttemptsItems(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	u, _ := store.CreateUser(ctx, "a@example.com", "A", "hash")
	turn, err := store.StartTurn(ctx, db.NewTurn{UserID: u.ID, Title: "t", Query: "q"})
	if err != nil {
		t.Fatal(err)
	}
	answer := turn.Assistant.ID
	if _, err := store.WriteAnswer(ctx, db.AnswerWrite{ID: answer, Status: db.StatusStreaming, Insert: []db.Message{{Role: db.RoleReasoning, Status: db.StatusComplete, Content: "thinking"}}}); err != nil {
		t.Fatal(err)
	}
	if err := store.SetAnswer(ctx, answer, "partial", db.StatusFailed, nil); err != nil {
		t.Fatal(err)
	}
	m, err := store.RestartOwnedAnswer(ctx, db.Owner{UserID: u.ID}, turn.Exchange.ID, answer)
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := store.ExchangeMessages(ctx, turn.Exchange.ID)
	if len(msgs) != 2 || m.Status != db.StatusPending || !strings.Contains(string(m.Metadata), `"items": 1`) || !strings.Contains(string(m.Metadata), "partial") {
		t.Fatalf("%d messages left, status %s, metadata %s", len(msgs), m.Status, m.Metadata)
	}
}

func TestSearchFallsBackToAnyWordAndSkipsOfflineAnswers(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	u, _ := store.CreateUser(ctx, "a@example.com", "A", "hash")
	mine, _ := store.StartTurn(ctx, db.NewTurn{UserID: u.ID, Title: "deploys", Query: "notes on kubernetes deployments"})
	_ = writeFinal(ctx, store, mine.Assistant.ID, "I searched for kubernetes and zebrafish", db.StatusComplete, []byte(`{"provider": "offline"}`))
	asking, _ := store.StartTurn(ctx, db.NewTurn{UserID: u.ID, Title: "q", Query: "where?"})
	hits, err := store.SearchWorkspace(ctx, u.ID, "kubernetes section", asking.Exchange.ID, 5)
	if err != nil || len(hits) != 1 || hits[0].ID != mine.Exchange.ID || hits[0].MessageID != mine.User.ID {
		t.Fatalf("hits %+v (%v); want the conversation, by its user message", hits, err)
	}
	if !strings.Contains(hits[0].Snippet, "**kubernetes**") {
		t.Fatalf("snippet %q does not mark the match", hits[0].Snippet)
	}
	if hits, _ := store.SearchWorkspace(ctx, u.ID, "zebrafish", asking.Exchange.ID, 5); len(hits) != 0 {
		t.Fatalf("found the offline agent's own answer: %+v", hits)
	}
	// A model's answer is searchable once its final write (WriteAnswer with Index) indexed it, not before.
	other, _ := store.StartTurn(ctx, db.NewTurn{UserID: u.ID, Title: "fish", Query: "tell me about fish"})
	_ = store.SetAnswer(ctx, other.Assistant.ID, "Zanzibar has reef fish", db.StatusComplete, []byte(`{"provider": "openai"}`))
	if hits, _ := store.SearchWorkspace(ctx, u.ID, "zanzibar", asking.Exchange.ID, 5); len(hits) != 0 {
		t.Fatal("an answer was searchable before it was indexed")
	}
	if err := writeFinal(ctx, store, other.Assistant.ID, "Zanzibar has reef fish", db.StatusComplete, nil); err != nil {
		t.Fatal(err)
	}
	if hits, _ := store.SearchWorkspace(ctx, u.ID, "zanzibar", asking.Exchange.ID, 5); len(hits) != 1 || hits[0].MessageID != other.Assistant.ID {
		t.Fatalf("the indexed answer was not found: %+v", hits)
	}
}
