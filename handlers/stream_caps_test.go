package handlers_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"parley/config"
	"parley/handlers/handlerstest"
)

// openStream opens the conversation's SSE stream as c and returns the response (its body open).
func openChatStream(t *testing.T, app *handlerstest.App, c *handlerstest.Client, exchangeID int64) *http.Response {
	t.Helper()
	res, err := (&http.Client{Jar: c.Jar}).Get(app.URL + fmt.Sprintf("/sessions/%d/events", exchangeID))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// Streams beyond PARLEY_MAX_STREAMS_PER_PERSON or PARLEY_MAX_STREAMS are answered 503 with a
// message saying which limit was met (and Retry-After); closing a stream frees its slot.
func TestStreamsBeyondTheCapsAreRefusedWith503(t *testing.T) {
	app := handlerstest.Start(t, func(c *config.Config) { c.MaxStreams, c.MaxStreamsPerPerson = 3, 2 })
	ada, bob := app.Client(t), app.Client(t)
	ada.SignUp("ada@example.com", "correct horse")
	bob.SignUp("bob@example.com", "correct horse")
	adaChat := exchangeFromPush(t, htmxPost(ada, "/chat/messages", url.Values{"query": {"hi"}, "idempotency_key": {"a"}}))
	bobChat := exchangeFromPush(t, htmxPost(bob, "/chat/messages", url.Values{"query": {"hi"}, "idempotency_key": {"b"}}))

	first := openChatStream(t, app, ada, adaChat)
	for _, res := range []*http.Response{first, openChatStream(t, app, ada, adaChat)} {
		if res.StatusCode != http.StatusOK {
			t.Fatalf("ada's stream: %d, want 200 within her 2", res.StatusCode)
		}
	}
	refused := func(res *http.Response, want string) {
		t.Helper()
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), want) || res.Header.Get("Retry-After") == "" {
			t.Fatalf("status %d, Retry-After %q, body %.300s; want 503 saying %q", res.StatusCode, res.Header.Get("Retry-After"), body, want)
		}
	}
	refused(openChatStream(t, app, ada, adaChat), "too many conversations open")
	if res := openChatStream(t, app, bob, bobChat); res.StatusCode != http.StatusOK {
		t.Fatalf("bob's first stream: %d, want 200 (3 in all)", res.StatusCode)
	}
	refused(openChatStream(t, app, bob, bobChat), "as many live conversations as it can")

	first.Body.Close() // frees one slot, once the server sees the connection close
	deadline := time.Now().Add(5 * time.Second)
	for {
		res := openChatStream(t, app, bob, bobChat)
		if res.StatusCode == http.StatusOK {
			break
		}
		res.Body.Close()
		if time.Now().After(deadline) {
			t.Fatalf("bob's stream after ada closed one: still %d", res.StatusCode)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
