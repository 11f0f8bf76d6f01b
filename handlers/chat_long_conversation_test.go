package handlers_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"parley/config"
	"parley/db"
	"parley/handlers/handlerstest"
)

// seedTurns stores n finished turns in exchange exchangeID, straight into the database (a test
// needs a long conversation, not n model calls): questions "q0", "q1", …, each answered answer.
func seedTurns(t *testing.T, app *handlerstest.App, exchangeID int64, n int, answer string) {
	t.Helper()
	ctx := context.Background()
	var userID int64
	if err := app.Store.DB.Get(&userID, `SELECT user_id FROM chat_exchange WHERE id = $1`, exchangeID); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		turn, err := app.Store.StartTurn(ctx, db.NewTurn{UserID: userID, ExchangeID: exchangeID, Query: fmt.Sprintf("q%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := app.Store.WriteAnswer(ctx, db.AnswerWrite{ID: turn.Assistant.ID, Content: answer, Status: db.StatusComplete}); err != nil {
			t.Fatal(err)
		}
	}
}

// A conversation longer than a turn's first read of its history, whose messages are short (so
// their text never fills the history budget), is still answered: a turn there once failed with
// "The conversation could not be read" (the read of its whole history overflowed its row limit).
func TestLongConversationOfShortMessagesIsAnswered(t *testing.T) {
	app, c := signedIn(t)
	exchangeID := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"hi"}, "idempotency_key": {"k0"}}))
	if m := waitAnswer(t, app, exchangeID); m.Status != db.StatusComplete {
		t.Fatalf("first answer %s", m.Status)
	}
	seedTurns(t, app, exchangeID, 60, "ok")
	htmxPost(c, fmt.Sprintf("/sessions/%d/messages", exchangeID), url.Values{"query": {"and now?"}, "idempotency_key": {"k61"}})
	if m := waitAnswer(t, app, exchangeID); m.Status != db.StatusComplete || m.Content == "" {
		t.Fatalf("the answer after 122 messages: %s %q %s", m.Status, m.Content, m.Metadata)
	}
}

// PARLEY_HISTORY_TOKENS bounds the earlier turns a turn sends the model: the first question, the
// newest answers that fit and the current question go; 0 sends the whole conversation.
func TestHistoryTokensBoundWhatTheModelIsSent(t *testing.T) {
	for _, c := range []struct {
		tokens, want int // want: the messages the model gets after the system prompt
	}{
		{tokens: 1000, want: 9}, // 4,000 bytes: q0 a0, then q6 a6 q7 a7 q8 a8 (1,000 bytes each answer), the query
		{tokens: 0, want: 21},   // all 10 turns, and the query
	} {
		t.Run(fmt.Sprint(c.tokens), func(t *testing.T) {
			up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply { return handlerstest.Reply{Deltas: []string{"ok"}} })
			app, client := signedIn(t, handlerstest.WithUpstream(up), func(cfg *config.Config) { cfg.HistoryTokens = c.tokens })
			exchangeID := exchangeFromPush(t, htmxPost(client, "/chat/messages", url.Values{"query": {"q0"}, "idempotency_key": {"k0"}}))
			waitAnswer(t, app, exchangeID)
			seedTurns(t, app, exchangeID, 9, strings.Repeat("a", 1000)) // 250 tokens each
			htmxPost(client, fmt.Sprintf("/sessions/%d/messages", exchangeID), url.Values{"query": {"and now?"}, "idempotency_key": {"k10"}})
			if m := waitAnswer(t, app, exchangeID); m.Status != db.StatusComplete {
				t.Fatalf("answer %s", m.Status)
			}
			roles, texts := rolesSent(t, up)
			sent := roles[1:] // after the system prompt
			if len(sent) != c.want || texts[len(texts)-1] != "and now?" {
				t.Fatalf("the model got %d messages (%v), ending with %v; want %d ending with the query", len(sent), sent, texts[len(texts)-1], c.want)
			}
		})
	}
}
