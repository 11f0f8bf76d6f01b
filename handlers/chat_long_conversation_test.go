package handlers_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"parley/db"
)

// A conversation longer than a turn's first read of its history, whose messages are short (so
// their text never fills the history budget), is still answered: a turn there once failed with
// "The conversation could not be read" (the read of its whole history overflowed its row limit).
func TestLongConversationOfShortMessagesIsAnswered(t *testing.T) {
	ctx := context.Background()
	app, c := signedIn(t)
	first := htmxPost(c, "/chat/messages", url.Values{"query": {"hi"}, "idempotency_key": {"k0"}})
	var exchangeID int64
	fmt.Sscanf(first.Header.Get("HX-Push-Url"), "/sessions/%d/chat", &exchangeID)
	if m := waitAnswer(t, app, exchangeID); m.Status != db.StatusComplete {
		t.Fatalf("first answer %s", m.Status)
	}
	var userID int64
	if err := app.Store.DB.Get(&userID, `SELECT user_id FROM chat_exchange WHERE id = $1`, exchangeID); err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		turn, err := app.Store.StartTurn(ctx, db.NewTurn{UserID: userID, ExchangeID: exchangeID, Query: fmt.Sprintf("q%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := app.Store.WriteAnswer(ctx, db.AnswerWrite{ID: turn.Assistant.ID, Content: "ok", Status: db.StatusComplete}); err != nil {
			t.Fatal(err)
		}
	}
	htmxPost(c, fmt.Sprintf("/sessions/%d/messages", exchangeID), url.Values{"query": {"and now?"}, "idempotency_key": {"k61"}})
	if m := waitAnswer(t, app, exchangeID); m.Status != db.StatusComplete || m.Content == "" {
		t.Fatalf("the answer after 122 messages: %s %q %s", m.Status, m.Content, m.Metadata)
	}
}
