package handlers_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"parley/handlers"
	"parley/handlers/handlerstest"
)

// A CSRF token counts only from the X-CSRF-Token header or the form body, never from the address
// (which ends up in logs and histories).
func TestCSRFTokenInTheAddressIsNotAccepted(t *testing.T) {
	app, c := signedIn(t)
	token := url.QueryEscape(c.CSRFToken())
	req, _ := http.NewRequest("POST", app.URL+"/api/chat?_csrf="+token, strings.NewReader(`{"query": "hi"}`))
	req.Header.Set("Content-Type", "application/json")
	if res := c.Do(req); res.Status != http.StatusForbidden {
		t.Fatalf("API token in the query: %d %s", res.Status, res.Body)
	}
	req, _ = http.NewRequest("POST", app.URL+"/chat/messages?_csrf="+token, strings.NewReader(url.Values{"query": {"hi"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if res := c.Do(req); res.Status != http.StatusForbidden {
		t.Fatalf("form post with the token in the query: %d", res.Status)
	}
	if count(t, app, "chat_message") != 0 {
		t.Fatal("a message was stored")
	}
}

// Responses to a signed-in viewer or an API key are never stored by caches; static assets are.
func TestPrivateResponsesAreNoStore(t *testing.T) {
	app, c := signedIn(t)
	key := createKey(t, c, "cache test")
	for _, path := range []string{"/chat", "/pages", "/api/chat/history", "/no-such-page"} {
		if res := c.Get(path); !strings.Contains(res.Header.Get("Cache-Control"), "no-store") {
			t.Errorf("GET %s (%d) signed in: Cache-Control %q", path, res.Status, res.Header.Get("Cache-Control"))
		}
	}
	res := apiClient{t: t, c: app.Client(t), key: key}.do("GET", "/api/chat/history", "")
	if res.Status != 200 || res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("API key: %d Cache-Control %q", res.Status, res.Header.Get("Cache-Control"))
	}
	if res := c.Get("/static/js/app.js"); strings.Contains(res.Header.Get("Cache-Control"), "no-store") {
		t.Errorf("static asset: Cache-Control %q", res.Header.Get("Cache-Control"))
	}
}

// The access log names the path only: chat text sent as ?query= (and any other parameter) stays
// out of it.
func TestAccessLogOmitsQueryStrings(t *testing.T) {
	var logs bytes.Buffer
	app := handlerstest.Start(t)
	srv, err := handlers.New(context.Background(), handlers.Deps{Config: app.Config, Store: app.Store,
		Logger: slog.New(slog.NewTextHandler(&logs, nil)), BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.StopGenerating(context.Background()) })
	req := httptest.NewRequest("POST", "/api/chat?query=my+secret+question", nil)
	srv.ServeHTTP(httptest.NewRecorder(), req)
	if !strings.Contains(logs.String(), "/api/chat") || strings.Contains(logs.String(), "secret") {
		t.Fatalf("access log: %s", logs.String())
	}
}
