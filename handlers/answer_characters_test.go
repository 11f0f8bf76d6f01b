package handlers_test

import (
	"net/url"
	"testing"

	"parley/db"
	"parley/handlers/handlerstest"
)

// A model that sends a NUL character ("\u0000", seen from local servers and in copied binary
// output) gets its answer stored complete without it; before, the first write failed, and the
// answer ended "interrupted" with no text at all.
func TestAnswerWithANULCharacterIsStoredCompleteWithoutIt(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{"Hello\x00 ", "world"}}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"hi"}, "idempotency_key": {"k"}}))
	m := waitAnswer(t, app, id)
	if m.Status != db.StatusComplete || m.Content != "Hello world" {
		t.Fatalf("answer %s %q (%s), want complete %q", m.Status, m.Content, m.Metadata, "Hello world")
	}
}
