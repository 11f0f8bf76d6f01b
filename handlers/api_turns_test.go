package handlers_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/handlers/handlerstest"
)

type apiEvent struct{ name, data string }

// openStream posts body to /api/chat/stream and returns the response and a channel of its events
// (closed when the stream ends).
func openStream(t *testing.T, app *handlerstest.App, c *handlerstest.Client, body string) (*http.Response, <-chan apiEvent) {
	t.Helper()
	req, _ := http.NewRequest("POST", app.URL+"/api/chat/stream", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", c.CSRFToken())
	resp, err := c.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	ch := make(chan apiEvent, 100)
	go func() {
		defer close(ch)
		var cur apiEvent
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
				ch <- cur
				cur = apiEvent{}
			}
		}
	}()
	return resp, ch
}

// latestExchange waits for the test's first exchange to be stored and returns its id.
func latestExchange(t *testing.T, app *handlerstest.App) int64 {
	t.Helper()
	for range 500 {
		var id *int64
		_ = app.Store.DB.Get(&id, `SELECT max(id) FROM chat_exchange`)
		if id != nil {
			return *id
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no exchange was stored")
	return 0
}

func slowModel(t *testing.T) *handlerstest.Upstream {
	return handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{"a ", "b ", "c ", "d ", "e ", "f"}, Gap: 400 * time.Millisecond}
	})
}

// A stopped answer is not a success: the blocking call answers 409 with error_code 409 and an
// error object; the stream sends an error event (not agent_completed) before result and done.
func TestAPIStoppedAnswerIsAnError(t *testing.T) {
	app, c := signedIn(t, handlerstest.WithUpstream(slowModel(t)))
	api := cookieAPI(t, c)
	got := make(chan handlerstest.Response, 1)
	go func() { got <- api.do("POST", "/api/chat", `{"query": "slow"}`) }()
	id := latestExchange(t, app)
	time.Sleep(300 * time.Millisecond)
	htmxPost(c, fmt.Sprintf("/sessions/%d/stop", id), url.Values{})
	res := <-got
	var body struct {
		chatResponse
		Error *struct{ Code, Message string } `json:"error"`
	}
	_ = json.Unmarshal([]byte(res.Body), &body)
	if res.Status != http.StatusConflict || body.ErrorCode != http.StatusConflict || body.Status != "cancelled" ||
		body.Error == nil || body.Error.Code != "cancelled" || body.ErrorMessage == "" {
		t.Fatalf("stopped answer: %d %s", res.Status, res.Body)
	}

	_, events := openStream(t, app, c, fmt.Sprintf(`{"query": "slow again", "exchange_id": %d}`, id))
	var names []string
	for ev := range events {
		names = append(names, ev.name)
		if ev.name == "text_delta" && !strings.Contains(strings.Join(names, ","), "stopped") {
			names = append(names, "stopped")
			htmxPost(c, fmt.Sprintf("/sessions/%d/stop", id), url.Values{})
		}
	}
	n := len(names)
	if n < 3 || names[n-3] != "error" || names[n-2] != "result" || names[n-1] != "done" || slices.Contains(names, "agent_completed") {
		t.Fatalf("stopped stream events %v", names)
	}
}

// At shutdown an open API stream says so with an error event before it closes.
func TestAPIStreamSaysWhenTheServerStops(t *testing.T) {
	app, c := signedIn(t, handlerstest.WithUpstream(slowModel(t)))
	_, events := openStream(t, app, c, `{"query": "slow"}`)
	var last apiEvent
	for ev := range events {
		last = ev
		if ev.name == "text_delta" {
			app.Parley.CloseStreams()
		}
	}
	if last.name != "error" || !strings.Contains(last.data, "restart") {
		t.Fatalf("the stream ended with %v", last)
	}
}

// A chat about a page in the trash is gone from the API too: a follow-up is 404 before any turn
// starts, and its messages are 404.
func TestAPIChatOfATrashedPageIs404(t *testing.T) {
	up := fakeModel(t, "ok")
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	api := cookieAPI(t, c)
	pageID := newPage(t, c, "Notes", "# Notes\n")
	var first chatResponse
	api.json("POST", "/api/chat", fmt.Sprintf(`{"query": "hi", "page_id": %d}`, pageID), 200, &first)
	c.PostForm(fmt.Sprintf("/pages/%d/trash", pageID), url.Values{})
	calls, turns := up.Calls.Load(), count(t, app, "chat_message")
	if res := api.do("POST", "/api/chat", fmt.Sprintf(`{"query": "more", "exchange_id": %d}`, first.ExchangeID)); res.Status != http.StatusNotFound {
		t.Fatalf("follow-up to a trashed page's chat: %d %s", res.Status, res.Body)
	}
	if up.Calls.Load() != calls || count(t, app, "chat_message") != turns {
		t.Fatal("the follow-up started a turn")
	}
	if res := api.do("GET", fmt.Sprintf("/api/chat/exchange/%d/messages", first.ExchangeID), ""); res.Status != http.StatusNotFound {
		t.Fatalf("messages of a trashed page's chat: %d", res.Status)
	}
}

// metric reads one parley_http_requests_total counter (0 when absent).
func metric(t *testing.T, c *handlerstest.Client, method, route, status string) int {
	t.Helper()
	body := c.Get("/metrics").Body
	prefix := fmt.Sprintf(`parley_http_requests_total{method=%q,route=%q,status=%q} `, method, route, status)
	for _, line := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			var n int
			fmt.Sscan(rest, &n)
			return n
		}
	}
	return 0
}

// A client that hangs up on a blocking POST /api/chat is not a server error; the answer goes on.
func TestAPIChatClientHangUpIsNotAServerError(t *testing.T) {
	app, c := signedIn(t, handlerstest.WithUpstream(slowModel(t)))
	before := metric(t, c, "POST", "/api/chat", "500")
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", app.URL+"/api/chat", strings.NewReader(`{"query": "slow"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", c.CSRFToken())
	go func() { time.Sleep(500 * time.Millisecond); cancel() }()
	if _, err := c.Client.Do(req); err == nil {
		t.Fatal("the request was not cancelled")
	}
	id := latestExchange(t, app)
	if m := waitAnswer(t, app, id); m.Status != "complete" {
		t.Fatalf("the answer is %s after the client hung up", m.Status)
	}
	if after := metric(t, c, "POST", "/api/chat", "500"); after != before {
		t.Fatalf("a hang-up counted as %d server errors", after-before)
	}
}

// An idempotency key replays only the message it was first sent with; reused for another
// message it is 409 and stores nothing.
func TestAPIIdempotencyKeyReusedForAnotherMessageIs409(t *testing.T) {
	app, c := signedIn(t)
	api := cookieAPI(t, c)
	var a chatResponse
	api.json("POST", "/api/chat", `{"query": "once", "idempotency_key": "k1"}`, 200, &a)
	n := count(t, app, "chat_message")
	for _, body := range []string{`{"query": "something else", "idempotency_key": "k1"}`,
		fmt.Sprintf(`{"query": "something else", "idempotency_key": "k1", "exchange_id": %d}`, a.ExchangeID)} {
		res := api.do("POST", "/api/chat", body)
		if res.Status != http.StatusConflict || !strings.Contains(res.Body, "different message") {
			t.Fatalf("%s: %d %s", body, res.Status, res.Body)
		}
	}
	if count(t, app, "chat_message") != n {
		t.Fatal("a reused key stored a turn")
	}
}

// The page assistant edits a page: asked for without a page_id it is 400 and stores nothing.
func TestAPIPageAssistantNeedsAPage(t *testing.T) {
	app, c := signedIn(t)
	res := cookieAPI(t, c).do("POST", "/api/chat?agent_type=page_assistant", `{"query": "hi"}`)
	var body apiErrorBody
	_ = json.Unmarshal([]byte(res.Body), &body)
	if res.Status != http.StatusBadRequest || body.Error.Field != "agent_type" || !strings.Contains(body.Error.Message, "page_id") || count(t, app, "chat_exchange") != 0 {
		t.Fatalf("page_assistant without a page: %d %s", res.Status, res.Body)
	}
}

// The API's regenerate is the chat's Regenerate button: a new version beside the latest answer,
// stopped or complete, and the old one with its text stays.
func TestAPIRegenerateKeepsEveryVersion(t *testing.T) {
	app, c := signedIn(t, handlerstest.WithUpstream(slowModel(t)))
	api := cookieAPI(t, c)
	got := make(chan handlerstest.Response, 1)
	go func() { got <- api.do("POST", "/api/chat", `{"query": "slow"}`) }()
	id := latestExchange(t, app)
	waitText(t, app, id)
	htmxPost(c, fmt.Sprintf("/sessions/%d/stop", id), url.Values{})
	var stopped chatResponse
	_ = json.Unmarshal([]byte((<-got).Body), &stopped)
	if stopped.Status != "cancelled" || stopped.Response == "" {
		t.Fatalf("stopped %+v", stopped)
	}
	var second, third chatResponse
	api.json("POST", "/api/chat", fmt.Sprintf(`{"regenerate": true, "exchange_id": %d}`, id), 200, &second)
	api.json("POST", "/api/chat", fmt.Sprintf(`{"regenerate": true, "exchange_id": %d}`, id), 200, &third) // a complete one too
	var old struct{ Content, Status string }
	if err := app.Store.DB.Get(&old, `SELECT content, status FROM chat_message WHERE id = $1`, stopped.MessageID); err != nil ||
		old.Content != stopped.Response || old.Status != "cancelled" {
		t.Fatalf("the stopped answer is gone or changed: %+v %v", old, err)
	}
	if second.MessageID == stopped.MessageID || third.MessageID == second.MessageID || second.Status != "complete" ||
		second.QueryID != stopped.QueryID || third.QueryID != stopped.QueryID {
		t.Fatalf("versions %+v / %+v / %+v", stopped, second, third)
	}
}

// The stream names the user's own message user_message, and a tool call's first appearance is
// tool_call_started even when it finished within one coalescing window.
func TestAPIStreamNamesUserMessagesAndToolCallStarts(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(call int64) handlerstest.Reply {
		if call == 1 {
			return handlerstest.Reply{Finish: "tool_calls", ToolCalls: []handlerstest.ToolCallDelta{
				{ID: "call_1", Name: "search_workspace", Args: `{"query": "soup"}`}}}
		}
		return handlerstest.Reply{Deltas: []string{"Found nothing."}}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	_, events := openStream(t, app, c, `{"query": "find soup"}`)
	roles := map[string][]string{}
	for ev := range events {
		var m struct{ Role string }
		_ = json.Unmarshal([]byte(ev.data), &m)
		roles[m.Role] = append(roles[m.Role], ev.name)
	}
	if len(roles["user"]) == 0 || roles["user"][0] != "user_message" {
		t.Errorf("user message events %v", roles["user"])
	}
	if len(roles["function_call"]) == 0 || roles["function_call"][0] != "tool_call_started" {
		t.Errorf("tool call events %v (all: %v)", roles["function_call"], roles)
	}
}

// Deleting an exchange while a blocking POST /api/chat waits for its answer ends the call with
// 409 cancelled, not a success.
func TestAPIAnswerOfADeletedExchangeIsAnError(t *testing.T) {
	app, c := signedIn(t, handlerstest.WithUpstream(slowModel(t)))
	api := cookieAPI(t, c)
	got := make(chan handlerstest.Response, 1)
	go func() { got <- api.do("POST", "/api/chat", `{"query": "slow"}`) }()
	id := latestExchange(t, app)
	time.Sleep(300 * time.Millisecond)
	api.json("DELETE", fmt.Sprintf("/api/chat/exchange/%d", id), "", 200, nil)
	res := <-got
	if res.Status != http.StatusConflict || !strings.Contains(res.Body, `"cancelled"`) {
		t.Fatalf("answer of a deleted exchange: %d %s", res.Status, res.Body)
	}
}
