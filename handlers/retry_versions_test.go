package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"parley/db"
	"parley/handlers/handlerstest"
)

// A Retry from a tab that still shows an answer another tab has since replaced (the question was
// edited there, so the failed answer is on a version no longer on screen) is refused with its
// reason, calls no model and leaves the conversation open to the next message. It once restarted
// the hidden answer: the model got the branch on screen cut at that answer's position, without
// the question it answers, and the conversation stayed busy with an answer nobody saw.
func TestRetryOfAnAnswerOnAnotherVersionIsRefusedWithItsReason(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(call int64) handlerstest.Reply {
		if call == 2 {
			return handlerstest.Reply{Status: 400} // not retried
		}
		return handlerstest.Reply{Deltas: []string{fmt.Sprintf("answer %d", call)}}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	ex := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"first question"}, "idempotency_key": {"k0"}}))
	waitAnswer(t, app, ex)
	htmxPost(c, fmt.Sprintf("/sessions/%d/messages", ex), url.Values{"query": {"second question"}, "idempotency_key": {"k1"}})
	failed := waitAnswer(t, app, ex)
	if failed.Status != db.StatusFailed {
		t.Fatalf("the second answer is %s", failed.Status)
	}
	res := htmxPost(c, fmt.Sprintf("/sessions/%d/messages/%d/edit", ex, *failed.ParentID), url.Values{"query": {"second question, edited"}})
	if res.Status != http.StatusOK {
		t.Fatalf("edit: %d %s", res.Status, res.Body)
	}
	waitAnswer(t, app, ex)
	calls := up.Calls.Load()

	res = htmxPost(c, fmt.Sprintf("/sessions/%d/messages/%d/retry", ex, failed.ID), url.Values{})
	if res.Status != http.StatusConflict || !strings.Contains(res.Header.Get("HX-Trigger"), "another version") {
		t.Fatalf("retry of the hidden answer: %d %s %s", res.Status, res.Header.Get("HX-Trigger"), res.Body)
	}
	var status string
	if err := app.Store.DB.Get(&status, `SELECT status FROM chat_message WHERE id = $1`, failed.ID); err != nil || status != db.StatusFailed {
		t.Fatalf("the hidden answer is %s (%v), want it left failed", status, err)
	}
	if n := up.Calls.Load(); n != calls {
		t.Fatalf("the refused retry called the model (%d calls, %d before)", n, calls)
	}
	res = htmxPost(c, fmt.Sprintf("/sessions/%d/messages", ex), url.Values{"query": {"next"}, "idempotency_key": {"k2"}})
	if res.Status != http.StatusOK {
		t.Fatalf("the next message: %d %s", res.Status, res.Body)
	}
	if m := waitAnswer(t, app, ex); m.Status != db.StatusComplete {
		t.Fatalf("the next answer is %s", m.Status)
	}
}
