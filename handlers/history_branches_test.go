package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"parley/db"
	"parley/handlers/handlerstest"
)

func contents(msgs []db.Message) string {
	var s []string
	for _, m := range msgs {
		if m.Role == db.RoleUser || m.Role == db.RoleAssistant {
			s = append(s, m.Role[:1]+":"+m.Content)
		}
	}
	return strings.Join(s, " | ")
}

// Regenerate and edit-and-resend add versions; switching changes what is shown and what the model
// is given next; nothing is ever deleted.
func TestRegenerateEditAndSwitchKeepEveryVersion(t *testing.T) {
	var replies = []string{"first answer", "second answer", "follow-up answer", "edited answer"}
	up := handlerstest.FakeOpenAI(t, func(n int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{replies[(n-1)%int64(len(replies))]}}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	ctx := context.Background()
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"original question"}, "idempotency_key": {"k1"}}))
	first := waitAnswer(t, app, id)

	res := htmxPost(c, fmt.Sprintf("/sessions/%d/messages/%d/regenerate", id, first.ID), url.Values{})
	if res.Status != http.StatusOK || res.Header.Get("HX-Retarget") != "#chat-pane" {
		t.Fatalf("regenerate: %d %s", res.Status, res.Body)
	}
	second := waitAnswer(t, app, id)
	if second.ID == first.ID || second.Content != "second answer" || *second.ParentID != *first.ParentID {
		t.Fatalf("the regenerated answer %+v is not a sibling of %d", second, first.ID)
	}
	page := doc(t, c.Get(fmt.Sprintf("/sessions/%d/chat", id)).Body)
	if got := page.Find("[data-testid=version-label]").Text(); got != "2/2" {
		t.Fatalf("version label %q, want 2/2", got)
	}
	if page.Find(fmt.Sprintf("#message-%d", first.ID)).Length() != 0 {
		t.Fatal("the old version is shown beside the new one")
	}

	res = htmxPost(c, fmt.Sprintf("/sessions/%d/messages/%d/switch", id, second.ID), url.Values{"to": {fmt.Sprint(first.ID)}})
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "first answer") || strings.Contains(res.Body, "second answer") {
		t.Fatalf("switch back: %d %s", res.Status, res.Body)
	}
	// A follow-up continues the branch on screen, and the model sees that branch only.
	htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"follow up"}, "idempotency_key": {"k2"}})
	waitAnswer(t, app, id)
	msgs, _ := app.Store.ExchangeMessages(ctx, id)
	if got := contents(msgs); got != "u:original question | a:first answer | u:follow up | a:follow-up answer" {
		t.Fatalf("branch after a follow-up: %s", got)
	}

	// Edit the first question: a new version with its own answer; the old line stays stored.
	userID := msgs[0].ID
	res = htmxPost(c, fmt.Sprintf("/sessions/%d/messages/%d/edit", id, userID), url.Values{"query": {"edited question"}})
	if res.Status != http.StatusOK {
		t.Fatalf("edit: %d %s", res.Status, res.Body)
	}
	waitAnswer(t, app, id)
	msgs, _ = app.Store.ExchangeMessages(ctx, id)
	if got := contents(msgs); got != "u:edited question | a:edited answer" {
		t.Fatalf("branch after the edit: %s", got)
	}
	if n := count(t, app, fmt.Sprintf("chat_message WHERE exchange_id = %d", id)); n != 7 {
		t.Fatalf("%d messages stored, want all 7 versions kept", n)
	}
	page = doc(t, c.Get(fmt.Sprintf("/sessions/%d/chat", id)).Body)
	if got := page.Find("[data-role=user] [data-testid=version-label]").Text(); got != "2/2" {
		t.Fatalf("edited question's label %q", got)
	}
	// Switching to the first question brings back the newest line under it.
	prev, _ := page.Find("[data-role=user] [data-testid=version-prev]").Attr("hx-vals")
	var to struct{ To string }
	_ = json.Unmarshal([]byte(prev), &to)
	htmxPost(c, fmt.Sprintf("/sessions/%d/messages/%d/switch", id, msgs[0].ID), url.Values{"to": {to.To}})
	msgs, _ = app.Store.ExchangeMessages(ctx, id)
	if got := contents(msgs); got != "u:original question | a:first answer | u:follow up | a:follow-up answer" {
		t.Fatalf("branch after switching back: %s", got)
	}

	// Bad input: a foreign or malformed version, a busy conversation.
	for _, tc := range []struct {
		path string
		form url.Values
		want int
	}{
		{fmt.Sprintf("/sessions/%d/messages/%d/switch", id, msgs[0].ID), url.Values{"to": {fmt.Sprint(second.ID)}}, http.StatusNotFound},
		{fmt.Sprintf("/sessions/%d/messages/%d/switch", id, msgs[0].ID), url.Values{"to": {"x"}}, http.StatusNotFound},
		{fmt.Sprintf("/sessions/%d/messages/%d/regenerate", id, msgs[0].ID), url.Values{}, http.StatusNotFound},
		{fmt.Sprintf("/sessions/%d/messages/%d/edit", id, msgs[0].ID), url.Values{"query": {"  "}}, http.StatusBadRequest},
	} {
		if res := htmxPost(c, tc.path, tc.form); res.Status != tc.want {
			t.Errorf("%s %v: %d, want %d", tc.path, tc.form, res.Status, tc.want)
		}
	}
	_ = time.Second
}

// Guests load older messages and regenerate in their own conversations; other guests get 404.
func TestGuestLoadsOlderMessagesAndRegenerates(t *testing.T) {
	app, guest, _ := publicAgent(t)
	htmxPost(guest, "/chat/owl/messages", url.Values{"query": {"hello owl"}, "idempotency_key": {"g1"}})
	ex := guestExchange(t, app)
	answer := waitAnswer(t, app, ex)
	// Make the conversation long: 60 more messages after the first turn.
	for i := 3; i <= 62; i++ {
		app.Store.DB.MustExec(`INSERT INTO chat_message (exchange_id, position, role, content) VALUES ($1, $2, 'user', $3)`, ex, i, fmt.Sprintf("note %d", i))
	}
	if res := guest.Get("/chat/owl"); strings.Count(res.Body, `class="msg `) != 40 || !strings.Contains(res.Body, `id="older-messages"`) {
		t.Fatalf("the guest page does not open with the latest 40 messages")
	}
	older := htmxGet(guest, fmt.Sprintf("/sessions/%d/messages?before=23", ex))
	if older.Status != http.StatusOK || !strings.Contains(older.Body, "hello owl") {
		t.Fatalf("older messages for the guest: %d", older.Status)
	}
	other := app.Client(t)
	htmxPost(other, "/chat/owl/messages", url.Values{"query": {"me too"}, "idempotency_key": {"g2"}})
	if res := htmxGet(other, fmt.Sprintf("/sessions/%d/messages?before=23", ex)); res.Status != http.StatusNotFound {
		t.Fatalf("another guest reads older messages: %d", res.Status)
	}
	if res := htmxPost(other, fmt.Sprintf("/sessions/%d/messages/%d/regenerate", ex, answer.ID), url.Values{}); res.Status != http.StatusNotFound {
		t.Fatalf("another guest regenerates: %d", res.Status)
	}
	if res := htmxPost(guest, fmt.Sprintf("/sessions/%d/messages/%d/regenerate", ex, answer.ID), url.Values{}); res.Status != http.StatusOK {
		t.Fatalf("the guest regenerates: %d %s", res.Status, res.Body)
	}
	if again := waitAnswer(t, app, ex); again.ID == answer.ID || *again.ParentID != *answer.ParentID {
		t.Fatalf("the regenerated answer %+v is not a new version", again)
	}
}
