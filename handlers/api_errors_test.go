package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"parley/handlers/handlerstest"
)

// A request under /api with neither a session cookie nor an API key is 401 whatever its method,
// not a CSRF 403: there is no session to forge.
func TestAPIAnonymousWritesAre401(t *testing.T) {
	app := handlerstest.Start(t)
	anon := apiClient{t: t, c: app.Client(t)}
	for _, r := range [][2]string{{"POST", "/api/chat"}, {"POST", "/api/chat/stream"}, {"PUT", "/api/chat/exchange/1/feedback"},
		{"DELETE", "/api/chat/exchange/1"}, {"DELETE", "/api/chat/history"}, {"GET", "/api/chat/history"}} {
		res := anon.do(r[0], r[1], `{"query": "hi"}`)
		var body apiErrorBody
		_ = json.Unmarshal([]byte(res.Body), &body)
		if res.Status != http.StatusUnauthorized || body.Error.Code != "unauthorized" {
			t.Errorf("anonymous %s %s: %d %s", r[0], r[1], res.Status, res.Body)
		}
	}
}

// Bad JSON is 400 with a plain sentence naming the field, never Go's internals; lone surrogate
// escapes are refused rather than turned into U+FFFD; a UTF-8 byte order mark is accepted.
func TestAPIJSONErrorsArePlain(t *testing.T) {
	_, c := signedIn(t)
	api := cookieAPI(t, c)
	var first chatResponse
	api.json("POST", "/api/chat", "\ufeff"+`{"query": "with a BOM"}`, 200, &first)
	fb := fmt.Sprintf("/api/chat/exchange/%d/feedback", first.ExchangeID)
	cases := []struct{ method, path, body, field string }{
		{"POST", "/api/chat", `{"query": "\ud800"}`, ""},
		{"POST", "/api/chat", `{"query": "a\udc00b"}`, ""},
		{"POST", "/api/chat", `{"query": "\ud800\u0041"}`, ""},
		{"POST", "/api/chat", `[1]`, ""},
		{"POST", "/api/chat", `{"query": 5}`, "query"},
		{"POST", "/api/chat", `{"query": "x"`, ""},
		{"PUT", fb, `{"feedback": 1, "reason": 5}`, "reason"},
	}
	for _, tc := range cases {
		res := api.do(tc.method, tc.path, tc.body)
		var body apiErrorBody
		_ = json.Unmarshal([]byte(res.Body), &body)
		msg := body.Error.Message
		if res.Status != http.StatusBadRequest || body.Error.Field != tc.field || strings.Contains(msg, "Go value") ||
			strings.Contains(msg, "handlers.") || strings.Contains(msg, "json:") || !strings.HasSuffix(msg, ".") {
			t.Errorf("%s %.30q: %d %s", tc.path, tc.body, res.Status, res.Body)
		}
	}
	// A surrogate pair is fine.
	api.json("POST", "/api/chat", `{"query": "emoji \ud83d\ude00", "exchange_id": `+fmt.Sprint(first.ExchangeID)+`}`, 200, nil)
	res := api.do("GET", "/api/chat/exchange/999999/messages", "")
	var body apiErrorBody
	_ = json.Unmarshal([]byte(res.Body), &body)
	if res.Status != http.StatusNotFound || len(body.Error.Message) < 20 || !strings.HasSuffix(body.Error.Message, ".") {
		t.Errorf("404 body %s", res.Body)
	}
}

// A wrong method is 405 with Allow, as JSON under /api and as a page elsewhere.
func TestWrongMethodIs405WithAllow(t *testing.T) {
	_, c := signedIn(t)
	res := c.Get("/api/chat")
	var body apiErrorBody
	_ = json.Unmarshal([]byte(res.Body), &body)
	if res.Status != http.StatusMethodNotAllowed || !strings.Contains(res.Header.Get("Allow"), "POST") || body.ErrCode != 405 {
		t.Errorf("GET /api/chat: %d Allow %q %s", res.Status, res.Header.Get("Allow"), res.Body)
	}
	res = c.Get("/signout")
	if res.Status != http.StatusMethodNotAllowed || !strings.Contains(res.Header.Get("Allow"), "POST") || !strings.Contains(res.Body, "<html") {
		t.Errorf("GET /signout: %d Allow %q", res.Status, res.Header.Get("Allow"))
	}
}
