package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"

	"parley/config"
	"parley/handlers/handlerstest"
)

// Generating an answer again is a model call like a new message: the API's regenerate, the chat's
// Retry and Regenerate all take from the message rate limit.
func TestRegenerateAndRetryAreRateLimited(t *testing.T) {
	var failing atomic.Bool
	failing.Store(true)
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		if failing.Load() {
			return handlerstest.Reply{Status: http.StatusInternalServerError}
		}
		return handlerstest.Reply{Deltas: []string{"ok"}}
	})
	_, c := signedIn(t, handlerstest.WithUpstream(up), func(cfg *config.Config) { cfg.MessagesPerMinute = 1 })
	api := cookieAPI(t, c)
	var failed chatResponse
	api.json("POST", "/api/chat", `{"query": "hi"}`, http.StatusBadGateway, &failed)
	failing.Store(false)
	calls := up.Calls.Load()
	res := api.do("POST", "/api/chat", fmt.Sprintf(`{"regenerate": true, "exchange_id": %d}`, failed.ExchangeID))
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("API regenerate over the limit: %d %s", res.Status, res.Body)
	}
	for _, action := range []string{"retry", "regenerate"} {
		res = htmxPost(c, fmt.Sprintf("/sessions/%d/messages/%d/%s", failed.ExchangeID, failed.MessageID, action), url.Values{})
		if res.Status != http.StatusTooManyRequests {
			t.Fatalf("%s over the limit: %d %s", action, res.Status, res.Body)
		}
	}
	if up.Calls.Load() != calls {
		t.Fatalf("model called %d more times while rate-limited", up.Calls.Load()-calls)
	}
}

// A replayed request (same idempotency key and message) takes no rate-limit slot.
func TestAPIReplayTakesNoRateLimitSlot(t *testing.T) {
	_, c := signedIn(t, func(cfg *config.Config) { cfg.MessagesPerMinute = 1 })
	api := cookieAPI(t, c)
	var a, b chatResponse
	api.json("POST", "/api/chat", `{"query": "once", "idempotency_key": "k1"}`, 200, &a)
	api.json("POST", "/api/chat", `{"query": "once", "idempotency_key": "k1"}`, 200, &b)
	api.json("POST", "/api/chat", fmt.Sprintf(`{"query": "once", "idempotency_key": "k1", "exchange_id": %d}`, a.ExchangeID), 200, &b)
	if a.MessageID != b.MessageID {
		t.Fatalf("replay %+v of %+v", b, a)
	}
}
