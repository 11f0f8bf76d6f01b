package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
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

// Two instances on one database share the message limit: a person who sent their 2 a minute
// through one instance and the other is refused on both (429, Retry-After, the banner), where
// per-process limits would have let them send twice more.
func TestMessageLimitHoldsAcrossInstancesOnOneDatabase(t *testing.T) {
	two := func(cfg *config.Config) { cfg.MessagesPerMinute = 2 }
	a, c := signedIn(t, two)
	b := handlerstest.Start(t, two, onDatabase(a.Config.DatabaseURL))
	onB := clientOn(t, b, c)
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"one"}, "idempotency_key": {"a"}}))
	waitAnswer(t, a, id)
	if res := htmxPost(onB, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"two"}, "idempotency_key": {"b"}}); res.Status != http.StatusOK {
		t.Fatalf("second message, on B: %d %s", res.Status, res.Body)
	}
	waitAnswer(t, a, id)
	for _, client := range []*handlerstest.Client{c, onB} {
		res := htmxPost(client, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"three"}, "idempotency_key": {"c"}})
		if res.Status != http.StatusTooManyRequests {
			t.Fatalf("third message in a minute: %d, want 429 on either instance", res.Status)
		}
		if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || s < 1 || s > 30 {
			t.Fatalf("Retry-After %q, want 1–30 s (one message every 30 s)", res.Header.Get("Retry-After"))
		}
		if doc(t, res.Body).Find("#limit-banner").Length() != 1 {
			t.Fatal("no rate-limit banner")
		}
	}
	if n := count(t, a, "chat_message"); n != 4 {
		t.Fatalf("%d messages stored, want 4 (two turns; the refused ones store nothing)", n)
	}
}

// Sign-in attempts for one account are limited across instances: after the limit is used up on
// A and B together, B refuses though it saw only some of them.
func TestSignInLimitHoldsAcrossInstancesOnOneDatabase(t *testing.T) {
	three := func(cfg *config.Config) { cfg.SignInRate = 3 }
	a := handlerstest.Start(t, three)
	b := handlerstest.Start(t, three, onDatabase(a.Config.DatabaseURL))
	a.Client(t).SignUp("ada@example.com", "correct horse") // one of the IP's 3
	want := []int{http.StatusUnauthorized, http.StatusUnauthorized, http.StatusTooManyRequests}
	for i, app := range []*handlerstest.App{a, b, b} {
		res := app.Client(t).PostForm("/signin", url.Values{"email": {"ada@example.com"}, "password": {"wrong"}})
		if res.Status != want[i] {
			t.Fatalf("attempt %d: %d, want %d", i+1, res.Status, want[i])
		}
		if res.Status == http.StatusTooManyRequests && res.Header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
	}
}

// Guests' messages are limited per client IP across instances: a guest on A and another guest
// (same IP) on B use up one bucket.
func TestGuestLimitHoldsAcrossInstancesOnOneDatabase(t *testing.T) {
	rates := func(c *config.Config) { c.MessagesPerMinute, c.GuestMessagesPerMinute = 100, 2 }
	a, ada := signedIn(t, rates)
	createAgent(t, ada, agentForm("owl"))
	b := handlerstest.Start(t, rates, onDatabase(a.Config.DatabaseURL))
	for i, guest := range []*handlerstest.Client{a.Client(t), b.Client(t)} {
		if res := htmxPost(guest, "/chat/owl/messages", url.Values{"query": {"hi"}, "idempotency_key": {fmt.Sprintf("k%d", i)}}); res.Status != http.StatusOK {
			t.Fatalf("guest message %d: %d %s", i+1, res.Status, res.Body)
		}
		waitAnswer(t, a, guestExchange(t, a))
	}
	res := htmxPost(b.Client(t), "/chat/owl/messages", url.Values{"query": {"hi"}, "idempotency_key": {"k3"}})
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("third guest message from the IP in a minute, on B: %d, want 429 with Retry-After", res.Status)
	}
}
