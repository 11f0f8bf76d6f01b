package agents_test

import (
	"net/http"
	"strings"
	"testing"

	"parley/agents"
)

// A base URL at which nothing answers is the most common misconfiguration reported against chat
// front ends (Ollama's native /api, the whole endpoint URL, no /v1). The router's bare 404 must
// come with where the request went and what to set, while a server's own JSON 404 ("model not
// found") is shown as it is.
func TestBaseURLWhereNothingAnswersSaysWhatToSet(t *testing.T) {
	ollamaRouter := func(w http.ResponseWriter, r *http.Request) { // gin's answer to an unknown path
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("404 page not found"))
	}
	cases := []struct {
		name, kind, base string
		handle           http.HandlerFunc
		want             []string
		wantNot          string
	}{
		{name: "ollama native api", kind: "openai", base: "/api", handle: ollamaRouter,
			want: []string{"HTTP 404 (404 page not found) to POST /api/chat/completions", "Ollama's native API (/api) is not OpenAI-compatible", "PARLEY_OPENAI_BASE_URL", "/v1"}},
		{name: "ollama native chat endpoint", kind: "openai", base: "/api/chat", handle: ollamaRouter,
			want: []string{"POST /api/chat/chat/completions", "Ollama's native API"}},
		{name: "whole endpoint url", kind: "openai", base: "/v1/chat/completions", handle: ollamaRouter,
			want: []string{"POST /v1/chat/completions/chat/completions", "without /chat/completions, which Parley adds"}},
		{name: "root without v1", kind: "openai", base: "", handle: ollamaRouter,
			want: []string{"POST /chat/completions", "most servers serve that under /v1"}},
		{name: "method not allowed page", kind: "openai", base: "/v1", handle: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusMethodNotAllowed)
			_, _ = w.Write([]byte("<html><head><title>405 Not Allowed</title></head></html>"))
		}, want: []string{"HTTP 405", "405 Not Allowed", "Check PARLEY_OPENAI_BASE_URL"}},
		{name: "anthropic", kind: "anthropic", base: "/v1", handle: ollamaRouter,
			want: []string{"POST /v1/v1/messages", "PARLEY_ANTHROPIC_BASE_URL: Parley adds /v1/messages"}},
		{name: "model not found is the server's own answer", kind: "openai", base: "/v1", handle: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"message":"model \"llama9\" not found, try pulling it first","type":"api_error"}}`))
		}, want: []string{`HTTP 404: model "llama9" not found`}, wantNot: "nothing answers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up := newUpstream(t, c.handle)
			p, err := agents.New(agents.Config{Kind: c.kind, BaseURL: up.URL + c.base, APIKey: testKey, Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{}
			res, err := p.Stream(t.Context(), agents.Request{Messages: []agents.Message{{Role: "user", Content: "hi"}}}, rec.emit)
			if agents.KindOf(err) != agents.KindHTTPError || res.Complete {
				t.Fatalf("err = %v (kind %q), complete %v: want an http_error", err, agents.KindOf(err), res.Complete)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q does not say %q", err, w)
				}
			}
			if c.wantNot != "" && strings.Contains(err.Error(), c.wantNot) {
				t.Errorf("message %q says %q", err, c.wantNot)
			}
			checkEvents(t, rec, res)
		})
	}
}
