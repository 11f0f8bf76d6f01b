package handlers_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"parley/config"
	"parley/handlers/handlerstest"
)

// sseLines reads the stream's lines in the background; lines yields each as it comes.
func sseLines(t *testing.T, app *handlerstest.App, c *handlerstest.Client, exchangeID int64) <-chan string {
	t.Helper()
	res := openChatStream(t, app, c, exchangeID)
	if res.StatusCode != 200 {
		t.Fatalf("stream: %d", res.StatusCode)
	}
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		r := bufio.NewReader(res.Body)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			lines <- strings.TrimRight(line, "\n")
		}
	}()
	return lines
}

// nextLine waits up to within for a line containing want and returns what came before it.
func nextLine(t *testing.T, lines <-chan string, within time.Duration, want string) []string {
	t.Helper()
	var seen []string
	deadline := time.After(within)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("the stream ended before %q; it sent %q", want, seen)
			}
			if strings.Contains(line, want) {
				return seen
			}
			seen = append(seen, line)
		case <-deadline:
			t.Fatalf("no %q within %s; the stream sent %q", want, within, seen)
		}
	}
}

// An idle stream (its snapshot sent, its handler returned) sends the heartbeat comment every
// PARLEY_STREAM_HEARTBEAT, each of several streams does, and they still carry a new turn.
func TestIdleStreamsKeepBeatingAndCarryNewTurns(t *testing.T) {
	app := handlerstest.Start(t, func(c *config.Config) { c.StreamHeartbeat = 100 * time.Millisecond })
	c := app.Client(t)
	c.SignUp("ada@example.com", "correct horse")
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"hello"}, "idempotency_key": {"a"}}))
	waitAnswer(t, app, id)

	first, second := sseLines(t, app, c, id), sseLines(t, app, c, id)
	for _, lines := range []<-chan string{first, second} {
		nextLine(t, lines, 5*time.Second, "event: snapshot")
		for range 3 {
			nextLine(t, lines, 2*time.Second, ": ping")
		}
	}
	res := htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"find nothing in particular"}, "idempotency_key": {"b"}})
	if res.Status != 200 {
		t.Fatalf("second turn: %d %s", res.Status, res.Body)
	}
	for _, lines := range []<-chan string{first, second} {
		nextLine(t, lines, 5*time.Second, "find nothing in particular")
		nextLine(t, lines, 15*time.Second, "event: agent_completed")
	}
}

// After the change listener reconnects (notices may have been lost), an idle stream sends a new
// snapshot rendered for its viewer, though the request that opened it ended long ago.
func TestIdleStreamResendsItsSnapshotAfterTheListenerReconnects(t *testing.T) {
	app := handlerstest.Start(t)
	c := app.Client(t)
	c.SignUp("ada@example.com", "correct horse")
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"hello there"}, "idempotency_key": {"a"}}))
	waitAnswer(t, app, id)
	lines := sseLines(t, app, c, id)
	nextLine(t, lines, 5*time.Second, "event: snapshot")
	nextLine(t, lines, 5*time.Second, "hello there")

	// Cut the listener's connection, as a database restart or a network blip would.
	if _, err := app.Store.DB.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN%'`); err != nil {
		t.Fatal(err)
	}
	nextLine(t, lines, 15*time.Second, "event: snapshot")
	nextLine(t, lines, 5*time.Second, "hello there")
}

// Closing an idle stream's connection frees its slot at once: the server notices the client left
// though nothing is being written to it.
func TestClosingAnIdleStreamFreesItsSlot(t *testing.T) {
	app := handlerstest.Start(t, func(c *config.Config) { c.MaxStreams, c.MaxStreamsPerPerson = 1, 1 })
	c := app.Client(t)
	c.SignUp("ada@example.com", "correct horse")
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"hi"}, "idempotency_key": {"a"}}))
	waitAnswer(t, app, id)
	// Each round waits (at most 2 s, far below the 15 s heartbeat that would otherwise find the
	// connection gone) until the one slot is free again, and holds it while it reads the snapshot.
	for round := range 3 {
		var res *http.Response
		waitFor(t, 2*time.Second, fmt.Sprintf("round %d: the slot freed", round), func() bool {
			res = openChatStream(t, app, c, id)
			if res.StatusCode == 200 {
				return true
			}
			res.Body.Close()
			return false
		})
		r := bufio.NewReader(res.Body)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(line, "event: snapshot") {
				break
			}
		}
		res.Body.Close()
	}
}
