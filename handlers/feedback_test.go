package handlers_test

import (
	"encoding/csv"
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

// answered sends one message through the chat page and waits for its answer.
func answered(t *testing.T, app *handlerstest.App, c *handlerstest.Client, query string) (exchangeID int64, answer db.Message) {
	t.Helper()
	res := htmxPost(c, "/chat/messages", url.Values{"query": {query}, "idempotency_key": {fmt.Sprintf("k%d", time.Now().UnixNano())}})
	exchangeID = exchangeFromPush(t, res)
	return exchangeID, waitAnswer(t, app, exchangeID)
}

func storedFeedback(t *testing.T, app *handlerstest.App, id int64) (rating *string, reason string, at *time.Time) {
	t.Helper()
	if err := app.Store.DB.QueryRow(`SELECT feedback, feedback_reason, feedback_at FROM chat_message WHERE id = $1`, id).Scan(&rating, &reason, &at); err != nil {
		t.Fatal(err)
	}
	return rating, reason, at
}

func TestFeedbackIsRatedChangedWithdrawnAndShownAfterReload(t *testing.T) {
	app, c := signedIn(t)
	id, answer := answered(t, app, c, "what is a tide?")
	path := fmt.Sprintf("/sessions/%d/messages/%d/feedback", id, answer.ID)

	res := htmxPost(c, path, url.Values{"rating": {"up"}})
	if res.Status != http.StatusOK {
		t.Fatalf("rate up: %d %s", res.Status, res.Body)
	}
	control := doc(t, res.Body)
	if control.Find("[data-testid=feedback-up]").AttrOr("aria-pressed", "") != "true" || control.Find("[data-testid=feedback-reason]").Length() != 1 {
		t.Fatalf("the control after rating does not show 👍 pressed with a reason field:\n%s", res.Body)
	}
	if r, _, at := storedFeedback(t, app, answer.ID); r == nil || *r != "up" || at == nil {
		t.Fatalf("stored rating %v at %v, want up with a time", r, at)
	}

	// A reason is saved with the same rating; changing the rating drops it; a new one replaces it.
	htmxPost(c, path, url.Values{"rating": {"up"}, "reason": {"  clear and short  "}})
	if _, reason, _ := storedFeedback(t, app, answer.ID); reason != "clear and short" {
		t.Fatalf("reason %q", reason)
	}
	htmxPost(c, path, url.Values{"rating": {"down"}})
	if r, reason, _ := storedFeedback(t, app, answer.ID); *r != "down" || reason != "" {
		t.Fatalf("after changing to down: %s %q, want down without the old reason", *r, reason)
	}
	htmxPost(c, path, url.Values{"rating": {"down"}, "reason": {"wrong date"}})

	// The rating and the reason show again after a reload.
	page := doc(t, c.Get(fmt.Sprintf("/sessions/%d/chat", id)).Body)
	fb := page.Find(fmt.Sprintf("#feedback-%d", answer.ID))
	if fb.AttrOr("data-rating", "") != "down" || fb.Find("[data-testid=feedback-reason]").AttrOr("value", "") != "wrong date" {
		t.Fatalf("after reload the control shows rating %q reason %q", fb.AttrOr("data-rating", ""), fb.Find("[data-testid=feedback-reason]").AttrOr("value", ""))
	}

	// Pressing the pressed thumb withdraws the rating and its reason.
	if v := fb.Find("[data-testid=feedback-down]").AttrOr("value", ""); v != "none" {
		t.Fatalf("the pressed thumb sends %q, want none", v)
	}
	htmxPost(c, path, url.Values{"rating": {"none"}})
	if r, reason, at := storedFeedback(t, app, answer.ID); r != nil || reason != "" || at != nil {
		t.Fatalf("after withdrawing: %v %q %v", r, reason, at)
	}
}

func TestFeedbackRefusesBadInputAndOthersMessages(t *testing.T) {
	app, c := signedIn(t)
	id, answer := answered(t, app, c, "hello")
	path := fmt.Sprintf("/sessions/%d/messages/%d/feedback", id, answer.ID)
	var question int64
	_ = app.Store.DB.Get(&question, `SELECT id FROM chat_message WHERE exchange_id = $1 AND role = 'user'`, id)

	cases := []struct {
		name   string
		path   string
		form   url.Values
		status int
	}{
		{"unknown rating", path, url.Values{"rating": {"meh"}}, 400},
		{"no rating", path, url.Values{}, 400},
		{"reason too long", path, url.Values{"rating": {"up"}, "reason": {strings.Repeat("x", 501)}}, 400},
		{"reason not UTF-8", path, url.Values{"rating": {"up"}, "reason": {"a\xffb"}}, 400},
		{"a user message", fmt.Sprintf("/sessions/%d/messages/%d/feedback", id, question), url.Values{"rating": {"up"}}, 404},
		{"message of another exchange", fmt.Sprintf("/sessions/%d/messages/%d/feedback", id+1, answer.ID), url.Values{"rating": {"up"}}, 404},
		{"malformed id", fmt.Sprintf("/sessions/%d/messages/x1/feedback", id), url.Values{"rating": {"up"}}, 404},
	}
	for _, tc := range cases {
		if res := htmxPost(c, tc.path, tc.form); res.Status != tc.status {
			t.Errorf("%s: status %d, want %d", tc.name, res.Status, tc.status)
		}
	}
	if r, _, _ := storedFeedback(t, app, answer.ID); r != nil {
		t.Fatalf("a refused request stored %s", *r)
	}

	other := app.Client(t)
	other.SignUp("bob@example.com", "correct horse")
	if res := htmxPost(other, path, url.Values{"rating": {"down"}}); res.Status != http.StatusNotFound {
		t.Fatalf("another user: %d, want 404", res.Status)
	}
	anon := app.Client(t)
	if res := htmxPost(anon, path, url.Values{"rating": {"down"}}); res.Status != http.StatusUnauthorized {
		t.Fatalf("signed out: %d, want 401", res.Status)
	}
	// Without a CSRF token nothing is stored.
	if res := c.PostFormRaw(path, url.Values{"rating": {"up"}}); res.Status != http.StatusForbidden {
		t.Fatalf("no CSRF token: %d, want 403", res.Status)
	}
	if r, _, _ := storedFeedback(t, app, answer.ID); r != nil {
		t.Fatalf("others stored %s", *r)
	}
}

func TestFeedbackOnAnUnfinishedAnswerIsAConflict(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{"slow ", "answer"}, Gap: 2 * time.Second}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	res := htmxPost(c, "/chat/messages", url.Values{"query": {"take your time"}, "idempotency_key": {"slow"}})
	id := exchangeFromPush(t, res)
	var answer int64
	_ = app.Store.DB.Get(&answer, `SELECT id FROM chat_message WHERE exchange_id = $1 AND role = 'assistant'`, id)
	res = htmxPost(c, fmt.Sprintf("/sessions/%d/messages/%d/feedback", id, answer), url.Values{"rating": {"up"}})
	if res.Status != http.StatusConflict {
		t.Fatalf("rating a streaming answer: %d, want 409", res.Status)
	}
	htmxPost(c, fmt.Sprintf("/sessions/%d/stop", id), url.Values{})
}

func TestAdminDownloadsAllFeedbackAsCSVAndJSON(t *testing.T) {
	app, admin := signedIn(t) // the first account is the admin
	_, a1 := answered(t, app, admin, "first question")
	id1 := a1.ExchangeID
	htmxPost(admin, fmt.Sprintf("/sessions/%d/messages/%d/feedback", id1, a1.ID), url.Values{"rating": {"up"}})
	htmxPost(admin, fmt.Sprintf("/sessions/%d/messages/%d/feedback", id1, a1.ID), url.Values{"rating": {"up"}, "reason": {"=HYPERLINK(\"x\")"}})

	bob := app.Client(t)
	bob.SignUp("bob@example.com", "correct horse")
	id2, a2 := answered(t, app, bob, "second question")
	htmxPost(bob, fmt.Sprintf("/sessions/%d/messages/%d/feedback", id2, a2.ID), url.Values{"rating": {"down"}, "reason": {"too vague"}})
	_, unrated := answered(t, app, bob, "third question")

	res := admin.Get("/admin/feedback.csv")
	if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") ||
		!strings.Contains(res.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("CSV: %d %v", res.Status, res.Header)
	}
	records, err := csv.NewReader(strings.NewReader(res.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(records[0], ",") != "message_id,exchange_id,user_id,agent,agent_type,rating,reason,time,message,query" || len(records) != 3 {
		t.Fatalf("CSV rows:\n%s", res.Body)
	}
	// Newest rating first: Bob's.
	if records[1][0] != fmt.Sprint(a2.ID) || records[1][5] != "down" || records[1][6] != "too vague" || records[1][9] != "second question" || records[1][3] == "" {
		t.Fatalf("first row %v", records[1])
	}
	if records[2][6] != `'=HYPERLINK("x")` {
		t.Fatalf("a formula in a reason was not defused: %q", records[2][6])
	}
	if _, err := time.Parse(time.RFC3339, records[1][7]); err != nil {
		t.Fatalf("time %q: %v", records[1][7], err)
	}

	res = admin.Get("/admin/feedback.json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(res.Body), &rows); err != nil || res.Status != http.StatusOK {
		t.Fatalf("JSON: %d %v\n%s", res.Status, err, res.Body)
	}
	if len(rows) != 2 || rows[0]["rating"] != "down" || rows[0]["agent"] == "" || rows[0]["time"] == nil || rows[0]["message"] != a2.Content {
		t.Fatalf("JSON rows %v", rows)
	}
	for _, r := range rows {
		if r["message_id"] == float64(unrated.ID) {
			t.Fatal("an unrated answer is in the export")
		}
	}

	for _, path := range []string{"/admin/feedback.csv", "/admin/feedback.json"} {
		if res := bob.Get(path); res.Status != http.StatusNotFound {
			t.Errorf("%s for a non-admin: %d, want 404", path, res.Status)
		}
		if res := app.Client(t).Get(path); res.Status != http.StatusSeeOther {
			t.Errorf("%s signed out: %d, want a redirect to sign in", path, res.Status)
		}
	}
	// The export is reachable from the admin's account page.
	page := doc(t, admin.Get("/account").Body)
	if page.Find(`a[href="/admin/feedback.csv"]`).Length() != 1 || page.Find(`a[href="/admin/feedback.json"]`).Length() != 1 {
		t.Fatal("the account page does not link the feedback export")
	}
	if doc(t, bob.Get("/account").Body).Find(`a[href="/admin/feedback.csv"]`).Length() != 0 {
		t.Fatal("a non-admin sees the feedback export link")
	}
}

// The export reads in keyset batches; rows with the same time are neither lost nor repeated at a
// batch boundary.
func TestFeedbackExportCrossesBatchesWithoutLossOrRepeats(t *testing.T) {
	app, admin := signedIn(t)
	id, _ := answered(t, app, admin, "seed")
	if _, err := app.Store.DB.Exec(`INSERT INTO chat_message (exchange_id, position, role, content, feedback, feedback_at)
		SELECT $1, 100 + g, 'assistant', 'a' || g, 'up', '2026-01-01T00:00:00Z'::timestamptz + (g / 7) * interval '1 second'
		FROM generate_series(1, 1234) g`, id); err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(strings.NewReader(admin.Get("/admin/feedback.csv").Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range records[1:] {
		if seen[r[0]] {
			t.Fatalf("message %s exported twice", r[0])
		}
		seen[r[0]] = true
	}
	if len(seen) != 1234 {
		t.Fatalf("exported %d ratings, want 1234", len(seen))
	}
}

// Guests rate the answers of their own conversations on an agent's page; nobody else can.
func TestGuestsRateTheirOwnAnswers(t *testing.T) {
	app, guest, _ := publicAgent(t)
	htmxPost(guest, "/chat/owl/messages", url.Values{"query": {"hello owl"}, "idempotency_key": {"g1"}})
	ex := guestExchange(t, app)
	answer := waitAnswer(t, app, ex)
	page := doc(t, guest.Get("/chat/owl").Body)
	if page.Find(fmt.Sprintf("#feedback-%d [data-testid=feedback-up]", answer.ID)).Length() != 1 {
		t.Fatal("the guest's answer shows no 👍/👎")
	}
	path := fmt.Sprintf("/sessions/%d/messages/%d/feedback", ex, answer.ID)
	other := app.Client(t)
	htmxPost(other, "/chat/owl/messages", url.Values{"query": {"me too"}, "idempotency_key": {"g2"}})
	if res := htmxPost(other, path, url.Values{"rating": {"down"}}); res.Status != http.StatusNotFound {
		t.Fatalf("another guest rating it: %d, want 404", res.Status)
	}
	bob := app.Client(t)
	bob.SignUp("bob@example.com", "correct horse")
	if res := htmxPost(bob, path, url.Values{"rating": {"down"}}); res.Status != http.StatusNotFound {
		t.Fatalf("a user rating a guest's answer: %d, want 404", res.Status)
	}
	if r, _, _ := storedFeedback(t, app, answer.ID); r != nil {
		t.Fatalf("others stored %s", *r)
	}
	if res := htmxPost(guest, path, url.Values{"rating": {"up"}}); res.Status != http.StatusOK {
		t.Fatalf("the guest rating their answer: %d %s", res.Status, res.Body)
	}
	if r, _, _ := storedFeedback(t, app, answer.ID); r == nil || *r != "up" {
		t.Fatalf("stored %v, want up", r)
	}
	if doc(t, guest.Get("/chat/owl").Body).Find(fmt.Sprintf("#feedback-%d", answer.ID)).AttrOr("data-rating", "") != "up" {
		t.Fatal("the guest's rating does not show after a reload")
	}
	// The JSON API is for accounts: a guest cookie does not open it, not even on the guest's own conversation.
	g := apiClient{t: t, c: guest, csrf: true}
	for _, call := range [][3]string{
		{"GET", fmt.Sprintf("/api/chat/exchange/%d/messages", ex), ""},
		{"PUT", fmt.Sprintf("/api/chat/exchange/%d/messages/%d/feedback", ex, answer.ID), "0"},
		{"POST", "/api/chat", fmt.Sprintf(`{"query": "x", "exchange_id": %d}`, ex)},
	} {
		if res := g.do(call[0], call[1], call[2]); res.Status != http.StatusUnauthorized {
			t.Errorf("guest %s %s: %d, want 401", call[0], call[1], res.Status)
		}
	}
}
