package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"parley/handlers/handlerstest"
)

// apiClient calls the JSON API as a signed-in browser script (cookie and X-CSRF-Token), with an
// API key (no cookies), or anonymously.
type apiClient struct {
	t    *testing.T
	c    *handlerstest.Client
	key  string // sent as x-api-key when set
	csrf bool   // send the CSRF token header
}

func (a apiClient) do(method, path, body string) handlerstest.Response {
	a.t.Helper()
	req, _ := http.NewRequest(method, a.c.URL(path), strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.key != "" {
		req.Header.Set("X-Api-Key", a.key)
	}
	if a.csrf {
		req.Header.Set("X-CSRF-Token", a.c.CSRFToken())
	}
	return a.c.Do(req)
}

// json calls the API and decodes a 2xx answer into v, failing the test on another status.
func (a apiClient) json(method, path, body string, want int, v any) handlerstest.Response {
	a.t.Helper()
	res := a.do(method, path, body)
	if res.Status != want {
		a.t.Fatalf("%s %s: status %d, want %d\n%s", method, path, res.Status, want, res.Body)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(res.Body), v); err != nil {
			a.t.Fatalf("%s %s: %v\n%s", method, path, err, res.Body)
		}
	}
	return res
}

func cookieAPI(t *testing.T, c *handlerstest.Client) apiClient {
	return apiClient{t: t, c: c, csrf: true}
}

// createKey makes an API key through the account page and returns it.
func createKey(t *testing.T, c *handlerstest.Client, name string) string {
	t.Helper()
	res := c.PostForm("/account/api-keys", url.Values{"name": {name}})
	key := strings.TrimSpace(doc(t, res.Body).Find("[data-testid=new-key-value]").Text())
	if res.Status != http.StatusOK || !strings.HasPrefix(key, "pk_") {
		t.Fatalf("creating a key: %d, key %q", res.Status, key)
	}
	return key
}

type chatResponse struct {
	Response       string  `json:"response"`
	ErrorCode      int     `json:"error_code"`
	ErrorMessage   string  `json:"error_message"`
	ExchangeID     int64   `json:"exchange_id"`
	ProcessingTime float64 `json:"processing_time"`
	MessageID      int64   `json:"message_id"`
	Status         string  `json:"status"`
	AgentResponse  *struct {
		Content     string          `json:"content"`
		Confidence  string          `json:"confidence"`
		AgentType   string          `json:"agent_type"`
		Suggestions []any           `json:"suggestions"`
		Metadata    map[string]any  `json:"metadata"`
		Reasoning   *string         `json:"reasoning"`
		Raw         json.RawMessage `json:"-"`
	} `json:"agent_response"`
}

type apiErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Field   string `json:"field"`
	} `json:"error"`
	ErrMsg  string `json:"err_msg"`
	ErrCode int    `json:"err_code"`
}

func fakeModel(t *testing.T, deltas ...string) *handlerstest.Upstream {
	return handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply { return handlerstest.Reply{Deltas: deltas} })
}

func TestAPIChatAnswersInGalaxysShapesAndContinuesTheExchange(t *testing.T) {
	up := fakeModel(t, "Tides ", "follow ", "the moon.")
	_, c := signedIn(t, handlerstest.WithUpstream(up))
	api := cookieAPI(t, c)

	var first chatResponse
	api.json("POST", "/api/chat", `{"query": "why are there tides?", "context": ""}`, 200, &first)
	if first.Response != "Tides follow the moon." || first.ErrorCode != 0 || first.ErrorMessage != "" || first.ExchangeID == 0 ||
		first.ProcessingTime <= 0 || first.Status != "complete" || first.MessageID == 0 {
		t.Fatalf("first answer %+v", first)
	}
	ar := first.AgentResponse
	if ar == nil || ar.Content != first.Response || ar.Confidence == "" || ar.AgentType != "router" || ar.Suggestions == nil || ar.Metadata["model"] != "fake-model" {
		t.Fatalf("agent_response %+v", ar)
	}
	var second chatResponse
	api.json("POST", "/api/chat", fmt.Sprintf(`{"query": "and the sun?", "exchange_id": %d}`, first.ExchangeID), 200, &second)
	if second.ExchangeID != first.ExchangeID || up.Calls.Load() != 2 {
		t.Fatalf("follow-up went to exchange %d (want %d); model calls %d", second.ExchangeID, first.ExchangeID, up.Calls.Load())
	}
	// The query may also come as ?query= (Galaxy's alternative to a body).
	var third chatResponse
	api.json("POST", "/api/chat?query=hello+again", "", 200, &third)
	if third.ExchangeID == first.ExchangeID || third.Response == "" {
		t.Fatalf("query parameter: %+v", third)
	}

	var msgs []map[string]any
	api.json("GET", fmt.Sprintf("/api/chat/exchange/%d/messages", first.ExchangeID), "", 200, &msgs)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m["role"].(string))
	}
	if strings.Join(roles, ",") != "user,assistant,user,assistant" {
		t.Fatalf("roles %v", roles)
	}
	if msgs[0]["content"] != "why are there tides?" || msgs[1]["content"] != "Tides follow the moon." || msgs[1]["agent_response"] == nil ||
		msgs[1]["feedback"] != nil || msgs[1]["id"] != float64(first.MessageID) || msgs[1]["timestamp"] == "" {
		t.Fatalf("messages %v", msgs)
	}
	if _, ok := msgs[1]["feedback"]; !ok {
		t.Fatal("an assistant item has no feedback key")
	}

	var history []map[string]any
	api.json("GET", "/api/chat/history?limit=10", "", 200, &history)
	if len(history) != 2 {
		t.Fatalf("history %v", history)
	}
	h := history[1] // most recent activity first: the ?query= exchange, then this one
	if h["id"] != float64(first.ExchangeID) || h["query"] != "why are there tides?" || h["response"] != "Tides follow the moon." ||
		h["message_count"] != float64(2) || h["agent_type"] != "router" || h["agent_response"] == nil || h["timestamp"] == "" {
		t.Fatalf("history item %v", h)
	}
	api.json("GET", "/api/chat/history?limit=1", "", 200, &history)
	if len(history) != 1 {
		t.Fatalf("limit=1 gave %d", len(history))
	}
}

func TestAPIChatErrorsHaveRealStatusesAndCostNoModelCall(t *testing.T) {
	up := fakeModel(t, "ok")
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	api := cookieAPI(t, c)
	var mine chatResponse
	api.json("POST", "/api/chat", `{"query": "mine"}`, 200, &mine)
	bob := app.Client(t)
	bob.SignUp("bob@example.com", "correct horse")
	var bobs chatResponse
	cookieAPI(t, bob).json("POST", "/api/chat", `{"query": "bob's"}`, 200, &bobs)

	var page, bobPage int64
	if err := app.Store.DB.Get(&page, `INSERT INTO pages (owner_id, title) SELECT id, 'Notes' FROM users WHERE email = 'ada@example.com' RETURNING id`); err != nil {
		t.Fatal(err)
	}
	_ = app.Store.DB.Get(&bobPage, `INSERT INTO pages (owner_id, title) SELECT id, 'Bob' FROM users WHERE email = 'bob@example.com' RETURNING id`)
	calls := up.Calls.Load()

	cases := []struct {
		name, path, body string
		status           int
		code, field      string
	}{
		{"empty query", "/api/chat", `{"query": "   "}`, 400, "invalid", "query"},
		{"no query at all", "/api/chat", ``, 400, "invalid", "query"},
		{"not JSON", "/api/chat", `{"query": `, 400, "invalid", ""},
		{"invalid UTF-8", "/api/chat", "{\"query\": \"a\xffb\"}", 400, "invalid", ""},
		{"exchange_id of the wrong type", "/api/chat", `{"query": "x", "exchange_id": "7"}`, 400, "invalid", "exchange_id"},
		{"context not a string", "/api/chat", `{"query": "x", "context": {"a": 1}}`, 400, "invalid", "context"},
		{"bad idempotency key", "/api/chat", `{"query": "x", "idempotency_key": "a b"}`, 400, "invalid", "idempotency_key"},
		{"unknown agent_type", "/api/chat?agent_type=wizard", `{"query": "x"}`, 400, "invalid", "agent_type"},
		{"someone else's exchange", "/api/chat", fmt.Sprintf(`{"query": "x", "exchange_id": %d}`, bobs.ExchangeID), 404, "not_found", ""},
		{"missing exchange", "/api/chat", `{"query": "x", "exchange_id": 999999}`, 404, "not_found", ""},
		{"malformed exchange id", "/api/chat", `{"query": "x", "exchange_id": -3}`, 404, "not_found", ""},
		{"page_id of a general exchange", "/api/chat", fmt.Sprintf(`{"query": "x", "exchange_id": %d, "page_id": %d}`, mine.ExchangeID, page), 409, "conflict", "page_id"},
		{"someone else's page", "/api/chat", fmt.Sprintf(`{"query": "x", "page_id": %d}`, bobPage), 404, "not_found", ""},
		{"regenerate without an exchange", "/api/chat", `{"regenerate": true}`, 400, "invalid", "exchange_id"},
		{"regenerate a complete answer", "/api/chat", fmt.Sprintf(`{"regenerate": true, "exchange_id": %d}`, mine.ExchangeID), 409, "conflict", "regenerate"},
		{"stream: someone else's exchange", "/api/chat/stream", fmt.Sprintf(`{"query": "x", "exchange_id": %d}`, bobs.ExchangeID), 404, "not_found", ""},
		{"stream: empty query", "/api/chat/stream", `{"query": ""}`, 400, "invalid", "query"},
		{"history limit 0", "/api/chat/history?limit=0", "", 400, "invalid", "limit"},
		{"history limit not a number", "/api/chat/history?limit=ten", "", 400, "invalid", "limit"},
	}
	for _, tc := range cases {
		method := "POST"
		if strings.Contains(tc.path, "history") {
			method = "GET"
		}
		res := api.do(method, tc.path, tc.body)
		var body apiErrorBody
		_ = json.Unmarshal([]byte(res.Body), &body)
		if res.Status != tc.status || body.Error.Code != tc.code || body.Error.Field != tc.field || body.ErrCode != tc.status ||
			body.Error.Message == "" || body.ErrMsg != body.Error.Message || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %s, want %d with code %s field %q", tc.name, res.Status, res.Body, tc.status, tc.code, tc.field)
		}
	}
	if got := up.Calls.Load(); got != calls {
		t.Fatalf("refused requests made %d model calls", got-calls)
	}
	var turns int
	_ = app.Store.DB.Get(&turns, `SELECT count(*) FROM chat_message WHERE role = 'user'`)
	if turns != 2 {
		t.Fatalf("refused requests stored turns: %d user messages, want 2", turns)
	}

	// A new exchange about one's own page is scoped to it, and its follow-ups must name that page.
	var onPage chatResponse
	api.json("POST", "/api/chat?agent_type=page_assistant", fmt.Sprintf(`{"query": "add a title", "page_id": %d}`, page), 200, &onPage)
	if onPage.AgentResponse.AgentType != "page_assistant" {
		t.Fatalf("agent_type=page_assistant answered as %q", onPage.AgentResponse.AgentType)
	}
	api.json("POST", "/api/chat", fmt.Sprintf(`{"query": "more", "exchange_id": %d, "page_id": %d}`, onPage.ExchangeID, page), 200, nil)
	if res := api.do("POST", "/api/chat", fmt.Sprintf(`{"query": "more", "exchange_id": %d, "page_id": %d}`, onPage.ExchangeID, page+1)); res.Status != 409 {
		t.Fatalf("a follow-up naming another page: %d, want 409", res.Status)
	}
	var defaulted chatResponse
	api.json("POST", "/api/chat", fmt.Sprintf(`{"query": "what is on this page?", "page_id": %d}`, page), 200, &defaulted)
	if defaulted.AgentResponse.AgentType != "page_assistant" {
		t.Fatalf("a page chat without agent_type is answered by %q, want the page's assistant", defaulted.AgentResponse.AgentType)
	}
	var pageHistory, general []map[string]any
	api.json("GET", fmt.Sprintf("/api/chat/page/%d/history", page), "", 200, &pageHistory)
	api.json("GET", "/api/chat/history", "", 200, &general)
	if len(pageHistory) != 2 || pageHistory[1]["id"] != float64(onPage.ExchangeID) || pageHistory[1]["page_id"] != float64(page) || len(general) != 1 {
		t.Fatalf("page history %v; general history %v", pageHistory, general)
	}
	if res := api.do("GET", fmt.Sprintf("/api/chat/page/%d/history", bobPage), ""); res.Status != 404 {
		t.Fatalf("someone else's page history: %d, want 404", res.Status)
	}
}

func TestAPIFailedAnswerIs502AndRegenerateRetriesIt(t *testing.T) {
	var failing atomic.Bool
	failing.Store(true)
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		if failing.Load() {
			return handlerstest.Reply{Status: http.StatusInternalServerError}
		}
		return handlerstest.Reply{Deltas: []string{"Second ", "time."}}
	})
	_, c := signedIn(t, handlerstest.WithUpstream(up))
	api := cookieAPI(t, c)
	var failed chatResponse
	api.json("POST", "/api/chat", `{"query": "hi"}`, http.StatusBadGateway, &failed)
	if failed.ErrorCode != 502 || failed.ErrorMessage == "" || failed.ExchangeID == 0 || failed.Status != "failed" {
		t.Fatalf("failed answer %+v", failed)
	}
	failing.Store(false)
	var again chatResponse
	api.json("POST", "/api/chat", fmt.Sprintf(`{"regenerate": true, "exchange_id": %d}`, failed.ExchangeID), 200, &again)
	if again.Response != "Second time." || again.MessageID != failed.MessageID || again.ExchangeID != failed.ExchangeID {
		t.Fatalf("regenerated %+v", again)
	}
}

func TestAPIIdempotencyKeyStoresOneTurn(t *testing.T) {
	app, c := signedIn(t)
	api := cookieAPI(t, c)
	var a, b chatResponse
	api.json("POST", "/api/chat", `{"query": "once", "idempotency_key": "k1"}`, 200, &a)
	api.json("POST", "/api/chat", `{"query": "once", "idempotency_key": "k1"}`, 200, &b)
	if a.ExchangeID != b.ExchangeID || a.MessageID != b.MessageID || count(t, app, "chat_exchange") != 1 {
		t.Fatalf("a retried request stored another turn: %+v %+v", a, b)
	}
}
