package handlers_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/config"
	"parley/db"
	"parley/handlers/handlerstest"
)

// htmxPost posts a form as htmx does (HX-Request), with the CSRF token.
func htmxPost(c *handlerstest.Client, path string, form url.Values) handlerstest.Response {
	form.Set("_csrf", c.CSRFToken())
	req, _ := http.NewRequest(http.MethodPost, c.URL(path), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	return c.Do(req)
}

func count(t *testing.T, app *handlerstest.App, table string) int {
	t.Helper()
	var n int
	if err := app.Store.DB.Get(&n, `SELECT count(*) FROM `+table); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitAnswer polls until the exchange's last assistant message has finished, and returns it.
func waitAnswer(t *testing.T, app *handlerstest.App, exchangeID int64) db.Message {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		var m db.Message
		err := app.Store.DB.Get(&m, `SELECT id, exchange_id, parent_id, position, role, content, status, agent_id, agent_type,
			tool_name, tool_call_id, tool_arguments, tool_result, duration_ms, metadata, feedback, created_at, updated_at
			FROM chat_message WHERE exchange_id = $1 AND role = 'assistant' ORDER BY id DESC LIMIT 1`, exchangeID)
		if err == nil && m.Status != db.StatusPending && m.Status != db.StatusStreaming {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the answer did not finish in 15 s")
	return db.Message{}
}

// waitText polls until the exchange's last answer is streaming with some of its text stored, so a
// test acts on an answer under way however slowly the machine runs (a fixed sleep guesses).
func waitText(t *testing.T, app *handlerstest.App, exchangeID int64) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		var streaming bool
		_ = app.Store.DB.Get(&streaming, `SELECT status = 'streaming' AND content <> '' FROM chat_message
			WHERE exchange_id = $1 AND role = 'assistant' ORDER BY id DESC LIMIT 1`, exchangeID)
		if streaming {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the answer stored no text within 15 s")
}

func exchangeFromPush(t *testing.T, res handlerstest.Response) int64 {
	t.Helper()
	var id int64
	if _, err := fmt.Sscanf(res.Header.Get("HX-Push-Url"), "/sessions/%d/chat", &id); err != nil {
		t.Fatalf("no HX-Push-Url with the new conversation (status %d): %v", res.Status, err)
	}
	return id
}

func TestSendBadQueryGetsInlineErrorAndStoresNothing(t *testing.T) {
	app, c := signedIn(t, func(c *config.Config) { c.MaxQueryChars = 50 })
	cases := []struct{ name, query, want string }{
		{"empty", "", "Type a message first"},
		{"whitespace only", " \n\t  ", "Type a message first"},
		{"over the limit", strings.Repeat("é", 51), "51 characters long; the limit is 50"},
		{"invalid UTF-8", "hello \xff\xfe world", "invalid UTF-8"},
		{"NUL byte", "a\x00b", "NUL character"},
		{"only invisible characters", "\u200b\u200b", "Type a message first"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := htmxPost(c, "/chat/messages", url.Values{"query": {tc.query}, "idempotency_key": {"k-" + tc.name}})
			if res.Status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422", res.Status)
			}
			msg := doc(t, res.Body).Find("[data-testid=query-error]").Text()
			if !strings.Contains(msg, tc.want) {
				t.Fatalf("inline error %q, want it to contain %q", msg, tc.want)
			}
			if tc.name == "over the limit" && doc(t, res.Body).Find("textarea#query").Text() != tc.query {
				t.Fatal("the typed text was not kept in the composer")
			}
		})
	}
	if n := count(t, app, "chat_message"); n != 0 {
		t.Fatalf("%d messages stored by refused requests", n)
	}
	if n := count(t, app, "chat_exchange"); n != 0 {
		t.Fatalf("%d exchanges stored by refused requests", n)
	}
}

func TestDoubleSubmitStoresOneTurn(t *testing.T) {
	app, c := signedIn(t)
	form := url.Values{"query": {"hello there"}, "idempotency_key": {"same-key"}}
	first := htmxPost(c, "/chat/messages", url.Values{"query": form["query"], "idempotency_key": form["idempotency_key"]})
	id := exchangeFromPush(t, first)
	second := htmxPost(c, "/chat/messages", url.Values{"query": form["query"], "idempotency_key": form["idempotency_key"]})
	if second.Status != http.StatusOK {
		t.Fatalf("replayed submit: %d", second.Status)
	}
	waitAnswer(t, app, id)
	var users int
	_ = app.Store.DB.Get(&users, `SELECT count(*) FROM chat_message WHERE role = 'user'`)
	if users != 1 || count(t, app, "chat_exchange") != 1 {
		t.Fatalf("user messages %d, exchanges %d; want 1 and 1", users, count(t, app, "chat_exchange"))
	}
	// The same key in the existing conversation is a replay too.
	htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"hello there"}, "idempotency_key": {"same-key"}})
	_ = app.Store.DB.Get(&users, `SELECT count(*) FROM chat_message WHERE role = 'user'`)
	if users != 1 {
		t.Fatalf("user messages after a replay into the exchange: %d", users)
	}
}

func TestOfflineAnswerSearchesThroughARealToolCall(t *testing.T) {
	app, c := signedIn(t)
	first := htmxPost(c, "/chat/messages", url.Values{"query": {"Remember: the tide at Monterey turns at noon"}, "idempotency_key": {"a"}})
	old := exchangeFromPush(t, first)
	waitAnswer(t, app, old)

	res := htmxPost(c, "/chat/messages", url.Values{"query": {"What do I know about the Monterey tide?"}, "idempotency_key": {"b"}})
	id := exchangeFromPush(t, res)
	answer := waitAnswer(t, app, id)
	if answer.Status != db.StatusComplete {
		t.Fatalf("answer status %s: %s", answer.Status, answer.Metadata)
	}
	var roles []string
	_ = app.Store.DB.Select(&roles, `SELECT role FROM chat_message WHERE exchange_id = $1 ORDER BY position, id`, id)
	want := "user,reasoning,function_call,function_call_output,assistant"
	if strings.Join(roles, ",") != want {
		t.Fatalf("roles %v, want %s", roles, want)
	}
	if !strings.Contains(answer.Content, fmt.Sprintf("/sessions/%d/chat", old)) {
		t.Fatalf("the answer does not link the conversation it found:\n%s", answer.Content)
	}
	if !strings.Contains(string(answer.Metadata), `"model": "offline"`) && !strings.Contains(string(answer.Metadata), `"model":"offline"`) {
		t.Fatalf("metadata lacks the model: %s", answer.Metadata)
	}
	page := c.Get(fmt.Sprintf("/sessions/%d/chat", id))
	d := doc(t, page.Body)
	if d.Find("[data-testid=tool-call]").Length() != 1 || d.Find("[data-testid=reasoning]").Length() != 1 {
		t.Fatal("the page does not show the tool call and reasoning items")
	}
	card := d.Find("[data-testid=suggestions] a")
	if card.Length() != 1 || card.AttrOr("href", "") != fmt.Sprintf("/sessions/%d/chat#message-1", old) {
		t.Fatalf("suggestion cards: %d, first href %q", card.Length(), card.AttrOr("href", ""))
	}
	if got := d.Find("[data-testid=confidence]").Text(); !strings.Contains(got, "medium") {
		t.Fatalf("confidence shown: %q", got)
	}
}

func TestUpstreamFailureIsStoredWithReasonAndRetrySucceeds(t *testing.T) {
	var failing atomic.Bool // the SDK retries a 500 itself, so fail every call until told otherwise
	failing.Store(true)
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		if failing.Load() {
			return handlerstest.Reply{Status: http.StatusInternalServerError}
		}
		return handlerstest.Reply{Deltas: []string{"All ", "good ", "now."}}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"hi"}, "idempotency_key": {"a"}}))
	failed := waitAnswer(t, app, id)
	if failed.Status != db.StatusFailed || !strings.Contains(string(failed.Metadata), "error") {
		t.Fatalf("status %s metadata %s, want failed with an error", failed.Status, failed.Metadata)
	}
	page := doc(t, c.Get(fmt.Sprintf("/sessions/%d/chat", id)).Body)
	if page.Find("[data-testid=retry]").Length() != 1 || page.Find("[data-testid=user-text]").Text() != "hi" {
		t.Fatal("a failed answer shows no Retry, or the query was lost")
	}
	failing.Store(false)
	res := htmxPost(c, fmt.Sprintf("/sessions/%d/messages/%d/retry", id, failed.ID), url.Values{})
	if res.Status != http.StatusNoContent { // the stream shows the new attempt; the pane (and draft) stay
		t.Fatalf("retry: %d", res.Status)
	}
	done := waitAnswer(t, app, id)
	if done.Status != db.StatusComplete || done.Content != "All good now." {
		t.Fatalf("after retry: %s %q", done.Status, done.Content)
	}
	if !strings.Contains(string(done.Metadata), "previous_attempts") {
		t.Fatalf("the failed attempt was not kept: %s", done.Metadata)
	}
}

func TestCutStreamKeepsPartialTextAsFailed(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{"Half ", "an answer"}, Cut: true}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"hi"}, "idempotency_key": {"a"}}))
	m := waitAnswer(t, app, id)
	if m.Status != db.StatusFailed || m.Content != "Half an answer" {
		t.Fatalf("status %s content %q, want failed with the partial text", m.Status, m.Content)
	}
}

func TestStopKeepsPartialAnswerAsCancelled(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: strings.Split("one two three four five six seven eight nine ten", " "), Gap: 100 * time.Millisecond}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"count"}, "idempotency_key": {"a"}}))
	waitText(t, app, id)
	if res := htmxPost(c, fmt.Sprintf("/sessions/%d/stop", id), url.Values{}); res.Status != http.StatusNoContent {
		t.Fatalf("stop: %d", res.Status)
	}
	m := waitAnswer(t, app, id)
	if m.Status != db.StatusCancelled || m.Content == "" || strings.Contains(m.Content, "ten") {
		t.Fatalf("status %s content %q, want cancelled with partial text", m.Status, m.Content)
	}
}

func TestMessageRateLimitAnswers429WithRetryAfter(t *testing.T) {
	app, c := signedIn(t, func(c *config.Config) { c.MessagesPerMinute = 1 })
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"one"}, "idempotency_key": {"a"}}))
	waitAnswer(t, app, id)
	res := htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"two"}, "idempotency_key": {"b"}})
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("status %d Retry-After %q", res.Status, res.Header.Get("Retry-After"))
	}
	if doc(t, res.Body).Find("#limit-banner").Length() != 1 {
		t.Fatal("no rate-limit banner")
	}
}

func TestWithoutJavaScriptThePostWaitsAndRedirectsToTheAnswer(t *testing.T) {
	_, c := signedIn(t)
	res := c.PostForm("/chat/messages", url.Values{"query": {"hello"}, "idempotency_key": {"x"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("status %d, want 303", res.Status)
	}
	page := doc(t, c.Get(res.Header.Get("Location")).Body)
	if page.Find("[data-role=assistant][data-status=complete] [data-testid=answer]").Length() != 1 {
		t.Fatal("after the redirect the answer is not complete on the page")
	}
}

func TestConversationsAreOwnerScoped(t *testing.T) {
	app := handlerstest.Start(t)
	owner := app.Client(t)
	owner.SignUp("ada@example.com", "correct horse")
	id := exchangeFromPush(t, htmxPost(owner, "/chat/messages", url.Values{"query": {"secret plans"}, "idempotency_key": {"a"}}))
	answer := waitAnswer(t, app, id)
	other := app.Client(t)
	other.SignUp("eve@example.com", "correct horse")
	for _, path := range []string{fmt.Sprintf("/sessions/%d/chat", id), fmt.Sprintf("/sessions/%d/events", id), "/sessions/abc/chat", "/sessions/0/chat", "/sessions/99999/chat"} {
		if res := other.Get(path); res.Status != http.StatusNotFound {
			t.Fatalf("GET %s as another user: %d, want 404", path, res.Status)
		}
	}
	for _, path := range []string{fmt.Sprintf("/sessions/%d/messages", id), fmt.Sprintf("/sessions/%d/stop", id), fmt.Sprintf("/sessions/%d/messages/%d/retry", id, answer.ID)} {
		if res := htmxPost(other, path, url.Values{"query": {"x"}}); res.Status != http.StatusNotFound {
			t.Fatalf("POST %s as another user: %d, want 404", path, res.Status)
		}
	}
	if strings.Contains(other.Get("/chat").Body, "secret plans") {
		t.Fatal("another user's history lists the conversation")
	}
}

func TestConcurrentSubmitsNeverLeaveAnAnswerStuck(t *testing.T) {
	app, c := signedIn(t)
	c.CSRFToken()
	// Six identical first messages at once: one conversation, one turn.
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			htmxPost(c, "/chat/messages", url.Values{"query": {"hello"}, "idempotency_key": {"dup-first"}})
		}()
	}
	wg.Wait()
	if n := count(t, app, "chat_exchange"); n != 1 {
		t.Fatalf("%d exchanges from one double-submitted first message", n)
	}
	var id int64
	_ = app.Store.DB.Get(&id, `SELECT id FROM chat_exchange`)
	waitAnswer(t, app, id)
	// Three different messages at once into one conversation: each is answered or refused, none waits forever.
	statuses := make([]int, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {fmt.Sprintf("q%d", i)}, "idempotency_key": {fmt.Sprintf("k%d", i)}}).Status
		}()
	}
	wg.Wait()
	waitAnswer(t, app, id)
	time.Sleep(200 * time.Millisecond)
	var stuck int
	_ = app.Store.DB.Get(&stuck, `SELECT count(*) FROM chat_message WHERE status IN ('pending', 'streaming')`)
	if stuck != 0 {
		t.Fatalf("%d answers left pending (statuses %v)", stuck, statuses)
	}
	for _, st := range statuses {
		if st != http.StatusOK && st != http.StatusConflict {
			t.Fatalf("statuses %v, want 200 or 409 each", statuses)
		}
	}
}

func TestBadIdempotencyKeyIsRefusedAndStoresNothing(t *testing.T) {
	app, c := signedIn(t)
	for _, key := range []string{strings.Repeat("k", 65), "bad key!", "\xff\xfe"} {
		res := htmxPost(c, "/chat/messages", url.Values{"query": {"hello"}, "idempotency_key": {key}})
		if res.Status != http.StatusBadRequest {
			t.Fatalf("key %q: status %d, want 400", key, res.Status)
		}
	}
	if n := count(t, app, "chat_message"); n != 0 {
		t.Fatalf("%d messages stored", n)
	}
}

// A second tab on the same conversation sees a message sent from the first, and its answer, live.
func TestSecondTabSeesNewMessagesLive(t *testing.T) {
	app, c := signedIn(t)
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"first"}, "idempotency_key": {"a"}}))
	waitAnswer(t, app, id)

	stream := &http.Client{Jar: c.Jar}
	res, err := stream.Get(c.URL(fmt.Sprintf("/sessions/%d/events", id)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" || res.Header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("stream headers: %q, X-Accel-Buffering %q", ct, res.Header.Get("X-Accel-Buffering"))
	}
	events := make(chan sseEvent, 256)
	go readEvents(bufio.NewReader(res.Body), events)
	if ev := <-events; ev.name != "snapshot" || !strings.Contains(ev.data, ">first<") {
		t.Fatalf("first event %s, want a snapshot with the conversation", ev.name)
	}

	htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"from the other tab"}, "idempotency_key": {"b"}})
	var sawQuery, sawAnswer bool
	timeout := time.After(15 * time.Second)
	for !sawAnswer {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("the stream closed")
			}
			sawQuery = sawQuery || strings.Contains(ev.data, "from the other tab")
			sawAnswer = sawQuery && ev.name == "agent_completed" && strings.Contains(ev.data, `data-status="complete"`)
		case <-timeout:
			t.Fatalf("no live update within 15 s (saw the query: %v)", sawQuery)
		}
	}
}

func TestRouterHandsPageEditsToTheMarkdownAssistant(t *testing.T) {
	app, c := signedIn(t)
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"Please rewrite the introduction section of my markdown"}, "idempotency_key": {"a"}}))
	answer := waitAnswer(t, app, id)
	var agent string
	_ = app.Store.DB.Get(&agent, `SELECT identifier FROM agents WHERE id = $1`, answer.AgentID)
	if agent != "markdown-assistant" || !strings.Contains(string(answer.Metadata), `"handoff_info"`) {
		t.Fatalf("answered by %q, metadata %s; want a hand-off to markdown-assistant", agent, answer.Metadata)
	}
	d := doc(t, c.Get(fmt.Sprintf("/sessions/%d/chat", id)).Body)
	label := d.Find("[data-role=assistant]").Last().Text()
	if !strings.Contains(label, "Markdown Assistant") || !strings.Contains(label, "via Router") {
		t.Fatalf("the answer's label does not show the specialist via the router: %q", label)
	}

	id2 := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"hello there"}, "idempotency_key": {"b"}}))
	answer = waitAnswer(t, app, id2)
	_ = app.Store.DB.Get(&agent, `SELECT identifier FROM agents WHERE id = $1`, answer.AgentID)
	if agent != "auto" || strings.Contains(string(answer.Metadata), "handoff_info") {
		t.Fatalf("a greeting was handed off to %q", agent)
	}
}

func TestContentFilterAsksToRephrase(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{"I can"}, Finish: "content_filter"}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"something"}, "idempotency_key": {"a"}}))
	m := waitAnswer(t, app, id)
	if m.Status != db.StatusFailed || !strings.Contains(string(m.Metadata), "rephras") || m.Content != "I can" {
		t.Fatalf("status %s content %q metadata %s", m.Status, m.Content, m.Metadata)
	}
}

func TestAnswerTimeoutMarksFailedAndKeepsText(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: strings.Split("slow and steady loses this race today", " "), Gap: 300 * time.Millisecond}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up), func(c *config.Config) { c.AnswerTimeout = time.Second })
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"go slow"}, "idempotency_key": {"a"}}))
	m := waitAnswer(t, app, id)
	if m.Status != db.StatusFailed || m.Content == "" || !strings.Contains(string(m.Metadata), "timeout") {
		t.Fatalf("status %s content %q metadata %s; want failed by timeout with partial text", m.Status, m.Content, m.Metadata)
	}
}

func TestShutdownEndsOpenStreams(t *testing.T) {
	app, c := signedIn(t)
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"hi"}, "idempotency_key": {"a"}}))
	waitAnswer(t, app, id)
	res, err := (&http.Client{Jar: c.Jar}).Get(c.URL(fmt.Sprintf("/sessions/%d/events", id)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	ended := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, res.Body); close(ended) }()
	app.Parley.CloseStreams()
	select {
	case <-ended:
	case <-time.After(3 * time.Second):
		t.Fatal("an open stream did not end at shutdown")
	}
}

func TestMissingConversationOffersANewChat(t *testing.T) {
	_, c := signedIn(t)
	res := c.Get("/sessions/424242/chat")
	if res.Status != http.StatusNotFound || doc(t, res.Body).Find(`[data-testid=new-chat][href="/chat/new"]`).Length() != 1 {
		t.Fatalf("status %d; want 404 with a New chat button", res.Status)
	}
}

// signedIn starts Parley with the options and signs up ada@example.com on a new client.
func signedIn(t *testing.T, options ...func(*config.Config)) (*handlerstest.App, *handlerstest.Client) {
	t.Helper()
	app := handlerstest.Start(t, options...)
	c := app.Client(t)
	c.SignUp("ada@example.com", "correct horse")
	return app, c
}
