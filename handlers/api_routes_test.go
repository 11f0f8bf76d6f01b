package handlers_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"parley/handlers/handlerstest"
)

// Every JSON route touching Ada's conversations, messages and feedback answers Bob (by cookie or by
// key) 404 and an anonymous client 401, and changes nothing.
func TestAPIIsolatesOwners(t *testing.T) {
	app, ada := signedIn(t)
	api := cookieAPI(t, ada)
	var res chatResponse
	api.json("POST", "/api/chat", `{"query": "ada's secret"}`, 200, &res)
	api.json("PUT", fmt.Sprintf("/api/chat/exchange/%d/messages/%d/feedback", res.ExchangeID, res.MessageID), `{"feedback": 1, "reason": "ada's reason"}`, 200, nil)
	var page int64
	_ = app.Store.DB.Get(&page, `INSERT INTO pages (owner_id, title) SELECT id, 'Ada' FROM users WHERE email = 'ada@example.com' RETURNING id`)
	var question int64
	_ = app.Store.DB.Get(&question, `SELECT id FROM chat_message WHERE role = 'user'`)

	bob := app.Client(t)
	bob.SignUp("bob@example.com", "correct horse")
	var bobs chatResponse
	cookieAPI(t, bob).json("POST", "/api/chat", `{"query": "bob's own"}`, 200, &bobs)

	e, m := res.ExchangeID, res.MessageID
	calls := []struct{ method, path, body string }{
		{"GET", fmt.Sprintf("/api/chat/exchange/%d/messages", e), ""},
		{"PUT", fmt.Sprintf("/api/chat/exchange/%d/feedback", e), `0`},
		{"PUT", fmt.Sprintf("/api/chat/exchange/%d/messages/%d/feedback", e, m), `0`},
		{"PUT", fmt.Sprintf("/api/chat/exchange/%d/messages/%d/feedback", bobs.ExchangeID, m), `0`}, // Ada's message under Bob's exchange
		{"PUT", fmt.Sprintf("/api/chat/exchange/%d/messages/%d/feedback", e, question), `0`},
		{"DELETE", fmt.Sprintf("/api/chat/exchange/%d", e), ""},
		{"PUT", "/api/chat/exchanges/batch/delete", fmt.Sprintf(`{"ids": [%d, %d]}`, bobs.ExchangeID, e)},
		{"POST", "/api/chat", fmt.Sprintf(`{"query": "hijack", "exchange_id": %d}`, e)},
		{"POST", "/api/chat", fmt.Sprintf(`{"regenerate": true, "exchange_id": %d}`, e)},
		{"POST", "/api/chat/stream", fmt.Sprintf(`{"query": "hijack", "exchange_id": %d}`, e)},
		{"POST", "/api/chat", fmt.Sprintf(`{"query": "on her page", "page_id": %d}`, page)},
		{"GET", fmt.Sprintf("/api/chat/page/%d/history", page), ""},
	}
	bobKey := createKey(t, bob, "bob")
	clients := map[string]apiClient{
		"bob by cookie": cookieAPI(t, bob),
		"bob by key":    {t: t, c: app.Client(t), key: bobKey},
	}
	for who, client := range clients {
		for _, call := range calls {
			if r := client.do(call.method, call.path, call.body); r.Status != http.StatusNotFound {
				t.Errorf("%s: %s %s: %d, want 404", who, call.method, call.path, r.Status)
			}
		}
	}
	anon := apiClient{t: t, c: app.Client(t), csrf: true}
	for _, call := range append(calls,
		struct{ method, path, body string }{"GET", "/api/chat/history", ""},
		struct{ method, path, body string }{"DELETE", "/api/chat/history", ""}) {
		if r := anon.do(call.method, call.path, call.body); r.Status != http.StatusUnauthorized {
			t.Errorf("anonymous: %s %s: %d, want 401", call.method, call.path, r.Status)
		}
	}
	// Bob's own lists hold nothing of Ada's; DELETE /api/chat/history clears only his.
	var history []map[string]any
	clients["bob by key"].json("GET", "/api/chat/history", "", 200, &history)
	if len(history) != 1 || history[0]["id"] != float64(bobs.ExchangeID) {
		t.Fatalf("Bob's history %v", history)
	}
	clients["bob by key"].json("DELETE", "/api/chat/history", "", 200, nil)

	var msgs []map[string]any
	api.json("GET", fmt.Sprintf("/api/chat/exchange/%d/messages", e), "", 200, &msgs)
	if len(msgs) != 2 || msgs[1]["feedback"] != float64(1) || msgs[1]["feedback_reason"] != "ada's reason" {
		t.Fatalf("Ada's conversation changed: %v", msgs)
	}
	if count(t, app, "chat_exchange WHERE page_id IS NOT NULL") != 0 {
		t.Fatal("Bob started a chat on Ada's page")
	}
}

func TestAPIFeedbackAddressesAMessageOrTheLatestAnswer(t *testing.T) {
	_, c := signedIn(t)
	api := cookieAPI(t, c)
	var first, second chatResponse
	api.json("POST", "/api/chat", `{"query": "one"}`, 200, &first)
	api.json("POST", "/api/chat", fmt.Sprintf(`{"query": "two", "exchange_id": %d}`, first.ExchangeID), 200, &second)
	e := first.ExchangeID
	byMessage := fmt.Sprintf("/api/chat/exchange/%d/messages/%d/feedback", e, first.MessageID)

	var saved map[string]any
	api.json("PUT", byMessage, `{"feedback": 0, "reason": "too short"}`, 200, &saved)
	if saved["message"] != "Feedback saved" || saved["feedback"] != float64(0) || saved["reason"] != "too short" || saved["message_id"] != float64(first.MessageID) {
		t.Fatalf("saved %v", saved)
	}
	// Galaxy's exchange route rates the latest answer, not the first.
	api.json("PUT", fmt.Sprintf("/api/chat/exchange/%d/feedback", e), `1`, 200, &saved)
	if saved["message_id"] != float64(second.MessageID) || saved["feedback"] != float64(1) {
		t.Fatalf("exchange route saved %v, want the latest answer %d", saved, second.MessageID)
	}
	var msgs []map[string]any
	api.json("GET", fmt.Sprintf("/api/chat/exchange/%d/messages", e), "", 200, &msgs)
	if msgs[1]["feedback"] != float64(0) || msgs[1]["feedback_reason"] != "too short" || msgs[3]["feedback"] != float64(1) {
		t.Fatalf("ratings per message: %v / %v", msgs[1], msgs[3])
	}
	var history []map[string]any
	api.json("GET", "/api/chat/history", "", 200, &history)
	// History shows the answer the exchange route rates: the latest one on the branch on screen.
	if history[0]["feedback"] != float64(1) || history[0]["response"] != second.Response {
		t.Fatalf("history shows feedback %v of %q, want the latest answer's", history[0]["feedback"], history[0]["response"])
	}
	// A bare null withdraws, reason and all.
	api.json("PUT", byMessage, `null`, 200, &saved)
	if saved["feedback"] != nil || saved["reason"] != "" || saved["message"] != "Feedback withdrawn" {
		t.Fatalf("withdrawn %v", saved)
	}
	for _, bad := range []string{`2`, `"up"`, `{"reason": "x"}`, `{"feedback": 1, "reason": "` + strings.Repeat("r", 501) + `"}`, ``, `[1]`} {
		if r := api.do("PUT", byMessage, bad); r.Status != http.StatusBadRequest {
			t.Errorf("body %.20q: %d, want 400", bad, r.Status)
		}
	}
	if r := api.do("PUT", fmt.Sprintf("/api/chat/exchange/%d/messages/abc/feedback", e), `1`); r.Status != http.StatusNotFound {
		t.Errorf("malformed message id: %d, want 404", r.Status)
	}
}

func TestAPIDeletesMoveExchangesToTheTrashAllOrNone(t *testing.T) {
	app, c := signedIn(t)
	api := cookieAPI(t, c)
	ids := make([]int64, 4)
	for i := range ids {
		var r chatResponse
		api.json("POST", "/api/chat", fmt.Sprintf(`{"query": "q%d"}`, i), 200, &r)
		ids[i] = r.ExchangeID
	}
	var out map[string]any
	api.json("DELETE", fmt.Sprintf("/api/chat/exchange/%d", ids[0]), "", 200, &out)
	if out["message"] != "Deleted" {
		t.Fatalf("delete: %v", out)
	}
	if r := api.do("GET", fmt.Sprintf("/api/chat/exchange/%d/messages", ids[0]), ""); r.Status != 404 {
		t.Fatalf("a deleted exchange's messages: %d", r.Status)
	}
	if r := api.do("DELETE", fmt.Sprintf("/api/chat/exchange/%d", ids[0]), ""); r.Status != 404 {
		t.Fatalf("deleting twice: %d", r.Status)
	}
	// One id that is not live: nothing moves.
	if r := api.do("PUT", "/api/chat/exchanges/batch/delete", fmt.Sprintf(`{"ids": [%d, %d]}`, ids[1], ids[0])); r.Status != 404 {
		t.Fatalf("batch with a deleted id: %d", r.Status)
	}
	for _, bad := range []string{`{"ids": []}`, `{}`, `{"ids": "1"}`} {
		if r := api.do("PUT", "/api/chat/exchanges/batch/delete", bad); r.Status != 400 {
			t.Errorf("batch %s: %d, want 400", bad, r.Status)
		}
	}
	var history []map[string]any
	api.json("GET", "/api/chat/history", "", 200, &history)
	if len(history) != 3 {
		t.Fatalf("after a refused batch the history has %d", len(history))
	}
	api.json("PUT", "/api/chat/exchanges/batch/delete", fmt.Sprintf(`{"ids": [%d, %d, %d]}`, ids[1], ids[2], ids[1]), 200, &out)
	if out["message"] != "Deleted 2 exchanges" {
		t.Fatalf("batch: %v", out)
	}
	api.json("DELETE", "/api/chat/history", "", 200, &out)
	if out["exchanges"] != float64(1) || out["messages"] != float64(2) {
		t.Fatalf("clear: %v", out)
	}
	api.json("GET", "/api/chat/history", "", 200, &history)
	if len(history) != 0 || count(t, app, "chat_exchange WHERE deleted_at IS NULL") != 0 || count(t, app, "chat_exchange") != 4 {
		t.Fatalf("after clearing: %d listed; exchanges are moved to the trash, not destroyed", len(history))
	}
}

func TestAPIChatStreamSendsProgressThenResultThenDone(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{"one ", "two ", "three ", "four ", "five"}, Gap: 150 * time.Millisecond}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	req, _ := http.NewRequest("POST", app.URL+"/api/chat/stream", strings.NewReader(`{"query": "count to five"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", c.CSRFToken())
	resp, err := c.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("stream: %d %v", resp.StatusCode, resp.Header)
	}
	type event struct{ name, data string }
	var events []event
	var cur event
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data += strings.TrimPrefix(line, "data: ")
		case line == "" && cur.name != "":
			events = append(events, cur)
			cur = event{}
		}
	}
	if len(events) < 4 {
		t.Fatalf("events %v", events)
	}
	var texts []string
	for _, ev := range events[:len(events)-2] {
		var m map[string]any
		if err := json.Unmarshal([]byte(ev.data), &m); err != nil || m["id"] == nil || m["role"] == nil {
			t.Fatalf("event %s data is not a message: %s", ev.name, ev.data)
		}
		if ev.name == "text_delta" {
			texts = append(texts, m["content"].(string))
		}
	}
	if len(texts) < 2 {
		t.Fatalf("saw %d text_delta events, want the answer to grow over several: %v", len(texts), events)
	}
	for _, s := range texts {
		if !strings.HasPrefix("one two three four five", s) {
			t.Fatalf("a text_delta carries %q, not the whole answer so far", s)
		}
	}
	if n := len(events); events[n-3].name != "agent_completed" || events[n-2].name != "result" || events[n-1].name != "done" || events[n-1].data != "{}" {
		t.Fatalf("the stream ends with %v", events[n-3:])
	}
	var result chatResponse
	if err := json.Unmarshal([]byte(events[len(events)-2].data), &result); err != nil || result.Response != "one two three four five" || result.ExchangeID == 0 || result.ErrorCode != 0 {
		t.Fatalf("result %s", events[len(events)-2].data)
	}
}

// The OpenAPI document lists every registered /api route with its method, and nothing else.
func TestOpenAPIDescribesEveryAPIRoute(t *testing.T) {
	app := handlerstest.Start(t)
	res := app.Client(t).Get("/api/openapi.json")
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal([]byte(res.Body), &doc); err != nil || res.Status != 200 || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("GET /api/openapi.json: %d %v", res.Status, err)
	}
	param := regexp.MustCompile(`:([a-z_]+)`)
	registered := map[string]bool{}
	for _, r := range app.Parley.Routes() {
		if !strings.HasPrefix(r.Path, "/api/") {
			continue
		}
		path := param.ReplaceAllString(r.Path, "{$1}")
		method := strings.ToLower(r.Method)
		registered[method+" "+path] = true
		if _, ok := doc.Paths[path][method]; !ok {
			t.Errorf("%s %s is registered but not in openapi.json", r.Method, path)
		}
	}
	for path, ops := range doc.Paths {
		for method := range ops {
			if !registered[method+" "+path] {
				t.Errorf("openapi.json describes %s %s, which is not registered", method, path)
			}
		}
	}
	if len(registered) < 11 {
		t.Fatalf("only %d /api routes registered", len(registered))
	}
	// Keep the file valid JSON on disk too (it is embedded).
	if b, err := os.ReadFile("openapi.json"); err != nil || !json.Valid(b) {
		t.Fatalf("openapi.json: %v", err)
	}
}

func TestAPIDeletingAnExchangeStopsItsAnswer(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{"a ", "b ", "c ", "d"}, Gap: time.Second}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", map[string][]string{"query": {"slow"}, "idempotency_key": {"s"}}))
	cookieAPI(t, c).json("DELETE", fmt.Sprintf("/api/chat/exchange/%d", id), "", 200, nil)
	if m := waitAnswer(t, app, id); m.Status != "cancelled" {
		t.Fatalf("the answer of a deleted exchange is %s, want cancelled", m.Status)
	}
}

// The chat page's delete and Clear history stop answers being written, like the API's delete.
func TestDeletingFromTheSidebarStopsTheAnswer(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{"a ", "b ", "c ", "d"}, Gap: time.Second}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	one := exchangeFromPush(t, htmxPost(c, "/chat/messages", map[string][]string{"query": {"slow one"}, "idempotency_key": {"s1"}}))
	if res := htmxPost(c, fmt.Sprintf("/sessions/%d/delete", one), map[string][]string{}); res.Status >= 400 {
		t.Fatalf("delete: %d", res.Status)
	}
	if m := waitAnswer(t, app, one); m.Status != "cancelled" {
		t.Fatalf("the answer of a deleted conversation is %s, want cancelled", m.Status)
	}
	two := exchangeFromPush(t, htmxPost(c, "/chat/messages", map[string][]string{"query": {"slow two"}, "idempotency_key": {"s2"}}))
	if res := htmxPost(c, "/history/clear", map[string][]string{}); res.Status >= 400 {
		t.Fatalf("clear: %d", res.Status)
	}
	if m := waitAnswer(t, app, two); m.Status != "cancelled" {
		t.Fatalf("the answer of a cleared conversation is %s, want cancelled", m.Status)
	}
}
