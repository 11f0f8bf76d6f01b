package handlers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"parley/db"
	"parley/handlers/handlerstest"
)

// endingUpstream is slowUpstream whose channel gets a value when a call's request ends (the
// generation stopped reading, or the reply was sent whole).
func endingUpstream(t *testing.T, words int, gap time.Duration) (*handlerstest.Upstream, <-chan time.Time) {
	up := slowUpstream(t, words, gap)
	ended := make(chan time.Time, 16)
	inner := up.Handler(func(int64) handlerstest.Reply {
		deltas := make([]string, words)
		for i := range deltas {
			deltas[i] = fmt.Sprintf("w%d ", i)
		}
		return handlerstest.Reply{Deltas: deltas, Gap: gap}
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.ServeHTTP(w, r)
		ended <- time.Now()
	}))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	up.URL = srv.URL
	return up, ended
}

// modelStopsWithin fails unless the model's call ends within d: a generation nobody will see
// must not keep spending the person's tokens.
func modelStopsWithin(t *testing.T, ended <-chan time.Time, d time.Duration, what string) {
	t.Helper()
	select {
	case <-ended:
	case <-time.After(d):
		t.Fatalf("%s: the model was still being read %s later", what, d)
	}
}

// Deleting a conversation stops its answer whichever instance generates it (before, only an
// answer of the instance that took the delete was stopped; another instance's kept writing into
// the Trash until the model finished).
func TestDeletingAConversationOnAnotherInstanceStopsItsAnswer(t *testing.T) {
	up, ended := endingUpstream(t, 200, 50*time.Millisecond) // 10 s of answer
	a, c := signedIn(t, handlerstest.WithUpstream(up), withLease(time.Second))
	b := handlerstest.Start(t, handlerstest.WithUpstream(up), onDatabase(a.Config.DatabaseURL), withLease(time.Second))
	for _, how := range []struct{ name, key, path string }{
		{"delete", "d", "/sessions/%d/delete"}, {"clear history", "c", "/history/clear"},
	} {
		id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"count"}, "idempotency_key": {how.key}}))
		answer := lastAnswerID(t, a.Store, id)
		waitFor(t, 5*time.Second, "A streams text", func() bool { return answerOf(t, a.Store, answer).Content != "" })
		path := how.path
		if how.name == "delete" {
			path = fmt.Sprintf(path, id)
		}
		if res := htmxPost(clientOn(t, b, c), path, url.Values{}); res.Status >= 300 {
			t.Fatalf("%s on B: %d", how.name, res.Status)
		}
		modelStopsWithin(t, ended, 3*time.Second, how.name+" on B")
		waitFor(t, 2*time.Second, "the answer is stored stopped", func() bool { return answerOf(t, a.Store, answer).Status != db.StatusStreaming })
		if m := answerOf(t, a.Store, answer); m.Status != db.StatusCancelled || m.Content == "" {
			t.Fatalf("after %s on B the answer is %s %q, want cancelled with its text", how.name, m.Status, m.Content)
		}
	}
}

// A generation whose answer was taken from it (purged from the Trash on another instance,
// interrupted and retried elsewhere) stops at its next write instead of reading the model to the
// end and failing every write.
func TestGenerationThatLostItsAnswerStopsReadingTheModel(t *testing.T) {
	up, ended := endingUpstream(t, 200, 50*time.Millisecond)
	a, c := signedIn(t, handlerstest.WithUpstream(up))
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"count"}, "idempotency_key": {"k"}}))
	answer := lastAnswerID(t, a.Store, id)
	waitFor(t, 5*time.Second, "the answer streams", func() bool { return answerOf(t, a.Store, answer).Content != "" })
	// Another instance's generation holds the answer now.
	if _, err := a.Store.DB.Exec(`UPDATE chat_message SET generator_id = 'elsewhere/1' WHERE id = $1`, answer); err != nil {
		t.Fatal(err)
	}
	modelStopsWithin(t, ended, 2*time.Second, "lease taken")
	if m := answerOf(t, a.Store, answer); m.Status != db.StatusStreaming {
		t.Fatalf("the answer another generation holds was changed to %s", m.Status)
	}
}

// Stop pressed on an instance that is not generating the answer returns once the answer is
// stored stopped, as a Stop on the generating instance does, so a message sent right after is
// accepted. Before, the generating instance learnt of it at its next lease renewal (up to 2 s with
// the default lease) and the message sent meanwhile got 409 "An answer is still being written".
func TestStopOnAnotherInstanceReturnsWithTheAnswerStoppedSoTheNextMessageIsAccepted(t *testing.T) {
	up := slowUpstream(t, 200, 50*time.Millisecond)
	a, c := signedIn(t, handlerstest.WithUpstream(up)) // the default lease: renewals every 2 s
	b := handlerstest.Start(t, handlerstest.WithUpstream(up), onDatabase(a.Config.DatabaseURL))
	onB := clientOn(t, b, c)
	for round := range 3 {
		id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"count"}, "idempotency_key": {fmt.Sprint("new", round)}}))
		answer := lastAnswerID(t, a.Store, id)
		waitFor(t, 5*time.Second, "A streams text", func() bool { return answerOf(t, a.Store, answer).Content != "" })
		started := time.Now()
		if res := htmxPost(onB, fmt.Sprintf("/sessions/%d/stop", id), url.Values{}); res.Status != http.StatusNoContent {
			t.Fatalf("stop on B: %d", res.Status)
		}
		took := time.Since(started)
		if m := answerOf(t, a.Store, answer); m.Status != db.StatusCancelled || m.Content == "" {
			t.Fatalf("round %d: Stop on B returned after %s with the answer %s %q, want it stored cancelled with its text", round, took, m.Status, m.Content)
		}
		t.Logf("round %d: Stop on B returned after %s", round, took)
		res := htmxPost(onB, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"next"}, "idempotency_key": {fmt.Sprint("next", round)}})
		if res.Status != http.StatusOK {
			t.Fatalf("round %d: the message sent right after Stop on B: %d %s", round, res.Status, res.Header.Get("HX-Trigger"))
		}
		htmxPost(c, fmt.Sprintf("/sessions/%d/stop", id), url.Values{}) // on A: returns once stopped
	}
}
