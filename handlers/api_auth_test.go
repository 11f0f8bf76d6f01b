package handlers_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"parley/config"
	"parley/handlers/handlerstest"
)

func TestAPIKeyIsShownOnceStoredAsAHashAndStopsWorkingWhenRevoked(t *testing.T) {
	app, c := signedIn(t)
	// The account page is reachable from the account menu.
	if doc(t, c.Get("/chat").Body).Find(`a[href="/account"]`).Length() == 0 {
		t.Fatal("no link to the account page")
	}
	key := createKey(t, c, "backup script")
	if strings.Contains(c.Get("/account").Body, key) {
		t.Fatal("the key is shown again after it was created")
	}
	var hash []byte
	var prefix, name string
	var used *time.Time
	if err := app.Store.DB.QueryRow(`SELECT key_hash, prefix, name, last_used_at FROM api_keys`).Scan(&hash, &prefix, &name, &used); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(key))
	if string(hash) != string(sum[:]) || !strings.HasPrefix(key, prefix) || len(prefix) >= len(key)/2 || name != "backup script" || used != nil {
		t.Fatalf("stored key: prefix %q name %q used %v; hash matches %v", prefix, name, used, string(hash) == string(sum[:]))
	}

	// The key works without cookies and without a CSRF token.
	script := apiClient{t: t, c: app.Client(t), key: key}
	var res chatResponse
	script.json("POST", "/api/chat", `{"query": "from a script"}`, 200, &res)
	script.json("GET", "/api/chat/history", "", 200, nil)
	_ = app.Store.DB.Get(&used, `SELECT last_used_at FROM api_keys`)
	if used == nil {
		t.Fatal("last_used_at was not set")
	}
	if got := doc(t, c.Get("/account").Body).Find("[data-testid=api-keys] tbody tr").Length(); got != 1 {
		t.Fatalf("the account page lists %d keys", got)
	}

	// Revoking it from the account page stops it at once.
	var id int64
	_ = app.Store.DB.Get(&id, `SELECT id FROM api_keys`)
	if r := c.PostForm(fmt.Sprintf("/account/api-keys/%d/revoke", id), url.Values{}); r.Status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", r.Status)
	}
	r := script.do("GET", "/api/chat/history", "")
	var body apiErrorBody
	_ = json.Unmarshal([]byte(r.Body), &body)
	if r.Status != http.StatusUnauthorized || body.Error.Code != "unauthorized" {
		t.Fatalf("a revoked key: %d %s, want 401", r.Status, r.Body)
	}
	if !strings.Contains(doc(t, c.Get("/account").Body).Find("[data-testid=api-keys]").Text(), "revoked") {
		t.Fatal("the account page does not show the key as revoked")
	}
	// Revoking again, or someone else revoking, is 404.
	if r := c.PostForm(fmt.Sprintf("/account/api-keys/%d/revoke", id), url.Values{}); r.Status != http.StatusNotFound {
		t.Fatalf("revoking a revoked key: %d", r.Status)
	}
	bob := app.Client(t)
	bob.SignUp("bob@example.com", "correct horse")
	bobKey := createKey(t, bob, "")
	_ = app.Store.DB.Get(&id, `SELECT id FROM api_keys WHERE name = 'API key'`)
	if r := c.PostForm(fmt.Sprintf("/account/api-keys/%d/revoke", id), url.Values{}); r.Status != http.StatusNotFound {
		t.Fatalf("revoking someone else's key: %d, want 404", r.Status)
	}
	apiClient{t: t, c: app.Client(t), key: bobKey}.json("GET", "/api/chat/history", "", 200, nil)

	// Bad keys; and a bad key is never rescued by a session cookie (its request skipped CSRF).
	for _, k := range []string{"pk_nope", "", strings.Repeat("x", 300)} {
		req, _ := http.NewRequest("GET", app.URL+"/api/chat/history", nil)
		req.Header["X-Api-Key"] = []string{k}
		if r := c.Do(req); r.Status != http.StatusUnauthorized {
			t.Errorf("key %.10q with a valid session cookie: %d, want 401", k, r.Status)
		}
	}
	if r := c.PostForm("/account/api-keys", url.Values{"name": {strings.Repeat("n", 81)}}); r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("an 81-character name: %d", r.Status)
	}
}

func TestAPICookieRequestsNeedCSRFAndKeyRequestsDoNot(t *testing.T) {
	app, c := signedIn(t)
	api := cookieAPI(t, c)
	var res chatResponse
	api.json("POST", "/api/chat", `{"query": "hello"}`, 200, &res)
	feedback := fmt.Sprintf("/api/chat/exchange/%d/messages/%d/feedback", res.ExchangeID, res.MessageID)

	noToken := apiClient{t: t, c: c}
	for _, call := range []struct{ method, path, body string }{
		{"POST", "/api/chat", `{"query": "forged"}`},
		{"POST", "/api/chat/stream", `{"query": "forged"}`},
		{"PUT", feedback, `1`},
		{"PUT", fmt.Sprintf("/api/chat/exchange/%d/feedback", res.ExchangeID), `1`},
		{"DELETE", fmt.Sprintf("/api/chat/exchange/%d", res.ExchangeID), ""},
		{"PUT", "/api/chat/exchanges/batch/delete", fmt.Sprintf(`{"ids": [%d]}`, res.ExchangeID)},
		{"DELETE", "/api/chat/history", ""},
	} {
		if r := noToken.do(call.method, call.path, call.body); r.Status != http.StatusForbidden {
			t.Errorf("%s %s with the cookie but no CSRF token: %d, want 403", call.method, call.path, r.Status)
		}
	}
	if count(t, app, "chat_exchange") != 1 || count(t, app, "chat_message") != 2 {
		t.Fatal("a request without a CSRF token changed something")
	}
	var fb *string
	_ = app.Store.DB.Get(&fb, `SELECT feedback FROM chat_message WHERE id = $1`, res.MessageID)
	if fb != nil {
		t.Fatal("feedback stored without a CSRF token")
	}
	// Reading needs no token.
	noToken.json("GET", "/api/chat/history", "", 200, nil)
	// With the token the cookie works.
	api.json("PUT", feedback, `1`, 200, nil)

	// An API key needs no token; an x-api-key header does not lift CSRF off the HTML routes.
	key := createKey(t, c, "k")
	apiClient{t: t, c: app.Client(t), key: key}.json("PUT", feedback, `0`, 200, nil)
	req, _ := http.NewRequest("POST", app.URL+fmt.Sprintf("/sessions/%d/messages/%d/feedback", res.ExchangeID, res.MessageID), strings.NewReader("rating=up"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Api-Key", key)
	if r := c.Do(req); r.Status != http.StatusForbidden {
		t.Fatalf("an HTML route with x-api-key and no CSRF token: %d, want 403", r.Status)
	}
	_ = app.Store.DB.Get(&fb, `SELECT feedback FROM chat_message WHERE id = $1`, res.MessageID)
	if fb == nil || *fb != "down" {
		t.Fatalf("feedback %v, want down from the key request", fb)
	}
}

func TestAPIKeysAreLimitedPerAccount(t *testing.T) {
	app, c := signedIn(t)
	if _, err := app.Store.DB.Exec(`INSERT INTO api_keys (user_id, name, prefix, key_hash)
		SELECT u.id, 'k', 'pk_', sha256(g::text::bytea) FROM users u, generate_series(1, 50) g`); err != nil {
		t.Fatal(err)
	}
	res := c.PostForm("/account/api-keys", url.Values{"name": {"one too many"}})
	if res.Status != http.StatusConflict || !strings.Contains(res.Body, "revoke one") || strings.Contains(res.Body, "new-key-value") {
		t.Fatalf("the 51st live key: %d", res.Status)
	}
	var id int64
	_ = app.Store.DB.Get(&id, `SELECT min(id) FROM api_keys`)
	c.PostForm(fmt.Sprintf("/account/api-keys/%d/revoke", id), url.Values{})
	createKey(t, c, "after revoking one")
}

func TestAPIRateLimitIs429WithRetryAfterAndNoModelCall(t *testing.T) {
	up := fakeModel(t, "ok")
	_, c := signedIn(t, handlerstest.WithUpstream(up), func(cfg *config.Config) { cfg.MessagesPerMinute = 1 })
	api := cookieAPI(t, c)
	api.json("POST", "/api/chat", `{"query": "one"}`, 200, nil)
	res := api.do("POST", "/api/chat", `{"query": "two"}`)
	var body apiErrorBody
	_ = json.Unmarshal([]byte(res.Body), &body)
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || body.Error.Code != "rate_limited" || up.Calls.Load() != 1 {
		t.Fatalf("over the limit: %d Retry-After %q %s; model calls %d", res.Status, res.Header.Get("Retry-After"), res.Body, up.Calls.Load())
	}
}
