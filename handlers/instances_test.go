package handlers_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/config"
	"parley/db"
	"parley/db/dbtest"
	"parley/handlers/handlerstest"
)

// onDatabase makes a second instance share the first one's database.
func onDatabase(dsn string) func(*config.Config) {
	return func(c *config.Config) { c.DatabaseURL = dsn }
}

// withLease sets the lease time, so tests about dead instances take seconds.
func withLease(d time.Duration) func(*config.Config) {
	return func(c *config.Config) { c.LeaseTimeout = d }
}

// clientOn is a client of app that shares c's cookies (one browser talking to two instances
// behind a load balancer: the jar keys cookies by host, and both listen on 127.0.0.1).
func clientOn(t *testing.T, app *handlerstest.App, c *handlerstest.Client) *handlerstest.Client {
	other := app.Client(t)
	other.Jar = c.Jar
	return other
}

// answerOf reads one message by id straight from the database.
func answerOf(t *testing.T, store *db.Store, id int64) db.Message {
	t.Helper()
	var m db.Message
	if err := store.DB.Get(&m, `SELECT id, exchange_id, role, content, status, metadata FROM chat_message WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return m
}

// lastAnswerID is the id of the exchange's newest assistant message.
func lastAnswerID(t *testing.T, store *db.Store, exchangeID int64) int64 {
	t.Helper()
	var id int64
	if err := store.DB.Get(&id, `SELECT id FROM chat_message WHERE exchange_id = $1 AND role = 'assistant' ORDER BY id DESC LIMIT 1`, exchangeID); err != nil {
		t.Fatal(err)
	}
	return id
}

// waitFor polls cond every 20 ms until it holds or within passes.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > within {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(start)
}

func slowUpstream(t *testing.T, words int, gap time.Duration) *handlerstest.Upstream {
	deltas := make([]string, words)
	for i := range deltas {
		deltas[i] = fmt.Sprintf("w%d ", i)
	}
	return handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply { return handlerstest.Reply{Deltas: deltas, Gap: gap} })
}

func TestAnswerGeneratedOnOneInstanceStreamsOnAnother(t *testing.T) {
	up := slowUpstream(t, 12, 60*time.Millisecond)
	a, c := signedIn(t, handlerstest.WithUpstream(up))
	b := handlerstest.Start(t, handlerstest.WithUpstream(up), onDatabase(a.Config.DatabaseURL))
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"first"}, "idempotency_key": {"a"}}))
	waitAnswer(t, a, id)
	before, err := a.Store.ExchangeMessages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	firstAnswer := fmt.Sprintf(`id="message-%d"`, before[len(before)-1].ID) // B may be told it changed too (its controls move)

	onB := clientOn(t, b, c)
	res, err := onB.Client.Get(onB.URL(fmt.Sprintf("/sessions/%d/events", id)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := make(chan sseEvent, 256)
	go readEvents(bufio.NewReader(res.Body), events)
	if ev := <-events; ev.name != "snapshot" {
		t.Fatalf("first event on B: %s, want snapshot", ev.name)
	}

	htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"second"}, "idempotency_key": {"b"}})
	intermediate := map[string]bool{} // distinct partial texts B's stream showed
	timeout := time.After(15 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("B's stream closed")
			}
			if ev.name == "text_delta" {
				intermediate[ev.data] = true
			}
			if ev.name == "agent_completed" && strings.Contains(ev.data, "w11") && !strings.Contains(ev.data, firstAnswer) {
				if len(intermediate) < 2 {
					t.Fatalf("B showed the answer complete after %d intermediate states, want ≥ 2", len(intermediate))
				}
				return
			}
		case <-timeout:
			t.Fatalf("B's stream did not show A's answer complete within 15 s (%d intermediate states)", len(intermediate))
		}
	}
}

func TestStartingAnotherInstanceLeavesLiveAnswersRunning(t *testing.T) {
	up := slowUpstream(t, 20, 50*time.Millisecond)
	a, c := signedIn(t, handlerstest.WithUpstream(up), withLease(time.Second))
	var ids []int64
	for i := range 3 {
		ids = append(ids, exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"count"}, "idempotency_key": {fmt.Sprint("k", i)}})))
	}
	for _, id := range ids {
		waitText(t, a, id) // A is streaming all three
	}
	handlerstest.Start(t, handlerstest.WithUpstream(up), onDatabase(a.Config.DatabaseURL), withLease(time.Second))
	for _, id := range ids {
		m := waitAnswer(t, a, id)
		if m.Status != db.StatusComplete || !strings.HasSuffix(m.Content, "w19 ") {
			t.Errorf("conversation %d: %s %q after B started, want complete", id, m.Status, m.Content)
		}
	}
}

func TestStopOnAnotherInstanceStopsTheAnswer(t *testing.T) {
	up := slowUpstream(t, 100, 50*time.Millisecond)
	a, c := signedIn(t, handlerstest.WithUpstream(up), withLease(time.Second))
	b := handlerstest.Start(t, handlerstest.WithUpstream(up), onDatabase(a.Config.DatabaseURL), withLease(time.Second))
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"count"}, "idempotency_key": {"a"}}))
	answer := lastAnswerID(t, a.Store, id)
	waitFor(t, 5*time.Second, "A streams text", func() bool { return answerOf(t, a.Store, answer).Content != "" })
	if res := htmxPost(clientOn(t, b, c), fmt.Sprintf("/sessions/%d/stop", id), url.Values{}); res.Status != http.StatusNoContent {
		t.Fatalf("stop on B: %d", res.Status)
	}
	waitFor(t, 2*time.Second, "the answer is cancelled", func() bool { return answerOf(t, a.Store, answer).Status == db.StatusCancelled })
	if m := answerOf(t, a.Store, answer); m.Content == "" || strings.Contains(m.Content, "w99") {
		t.Fatalf("stopped answer: %q, want partial text", m.Content)
	}
}

func TestKilledInstancesAnswerIsInterruptedWithinTheLeaseAndRetriedOnAnother(t *testing.T) {
	const lease = 2 * time.Second
	up := slowUpstream(t, 200, 50*time.Millisecond)
	dsn := dbtest.URL(t)
	procA := handlerstest.StartProcess(t, dsn, "PARLEY_PROVIDER=openai", "PARLEY_OPENAI_BASE_URL="+up.URL,
		"PARLEY_OPENAI_MODEL=fake-model", "PARLEY_LEASE_TIMEOUT="+lease.String())
	b := handlerstest.Start(t, handlerstest.WithUpstream(up), onDatabase(dsn), withLease(lease))
	c := procA.App().Client(t)
	c.SignUp("ada@example.com", "correct horse")
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"count"}, "idempotency_key": {"a"}}))
	answer := lastAnswerID(t, b.Store, id)
	waitFor(t, 10*time.Second, "A streams text", func() bool { return answerOf(t, b.Store, answer).Content != "" })

	// B starting meanwhile did not touch A's live answer.
	if m := answerOf(t, b.Store, answer); m.Status != db.StatusStreaming {
		t.Fatalf("A's live answer is %s with B running", m.Status)
	}
	procA.Kill()
	took := waitFor(t, 2*lease, "B marks the dead instance's answer interrupted", func() bool {
		return answerOf(t, b.Store, answer).Status == db.StatusInterrupted
	})
	if m := answerOf(t, b.Store, answer); !strings.HasPrefix(m.Content, "w0 ") {
		t.Fatalf("interrupted answer lost its text: %q", m.Content)
	}
	t.Logf("interrupted %s after kill -9 (lease %s)", took.Round(10*time.Millisecond), lease)

	onB := clientOn(t, b, c)
	if res := htmxPost(onB, fmt.Sprintf("/sessions/%d/messages/%d/retry", id, answer), url.Values{}); res.Status != http.StatusNoContent {
		t.Fatalf("retry on B: %d %s", res.Status, res.Body)
	}
	waitFor(t, 20*time.Second, "B's retry completes", func() bool { return answerOf(t, b.Store, answer).Status == db.StatusComplete })
}

func TestRetryOfAnAnswerAnotherInstanceIsWritingIsRefusedWithAReason(t *testing.T) {
	up := slowUpstream(t, 100, 50*time.Millisecond)
	a, c := signedIn(t, handlerstest.WithUpstream(up))
	b := handlerstest.Start(t, handlerstest.WithUpstream(up), onDatabase(a.Config.DatabaseURL))
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"count"}, "idempotency_key": {"a"}}))
	answer := lastAnswerID(t, a.Store, id)
	waitFor(t, 5*time.Second, "A streams text", func() bool { return answerOf(t, a.Store, answer).Content != "" })
	res := htmxPost(clientOn(t, b, c), fmt.Sprintf("/sessions/%d/messages/%d/retry", id, answer), url.Values{})
	if res.Status != http.StatusConflict || !strings.Contains(res.Header.Get("HX-Trigger"), "still being written") {
		t.Fatalf("retry on B while A writes: %d %q, want 409 saying an answer is being written", res.Status, res.Header.Get("HX-Trigger"))
	}
	if m := answerOf(t, a.Store, answer); m.Status != db.StatusStreaming {
		t.Fatalf("the refused retry changed A's answer to %s", m.Status)
	}
}

func TestShutdownWithAWaitingPostExitsZero(t *testing.T) {
	dsn := dbtest.URL(t)
	p := handlerstest.StartProcess(t, dsn, "PARLEY_OFFLINE_DELAY=100ms", "PARLEY_SHUTDOWN_TIMEOUT=1s")
	c := p.App().Client(t)
	c.SignUp("ada@example.com", "correct horse")
	posted := make(chan int, 1)
	go func() { // no JavaScript: the POST waits for the answer
		form := url.Values{"query": {"tell me a long story"}, "idempotency_key": {"nojs"}, "_csrf": {c.CSRFToken()}}
		res, err := c.Client.PostForm(c.URL("/chat/messages"), form)
		if err != nil {
			posted <- 0
			return
		}
		res.Body.Close()
		posted <- res.StatusCode
	}()
	time.Sleep(300 * time.Millisecond)
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.Wait(15 * time.Second); code != 0 {
		t.Fatalf("exit code %d after SIGTERM with a POST in flight, want 0\n%s", code, p.Log())
	}
	if status := <-posted; status != http.StatusSeeOther {
		t.Fatalf("the waiting POST got %d, want its redirect (303)", status)
	}
}

func TestSecondSignalForcesTheExit(t *testing.T) {
	dsn := dbtest.URL(t)
	p := handlerstest.StartProcess(t, dsn, "PARLEY_OFFLINE_DELAY=500ms", "PARLEY_SHUTDOWN_TIMEOUT=60s")
	c := p.App().Client(t)
	c.SignUp("ada@example.com", "correct horse")
	htmxPost(c, "/chat/messages", url.Values{"query": {"tell me a long story"}, "idempotency_key": {"a"}})
	_ = p.Signal(syscall.SIGTERM) // the answer would keep the shutdown waiting for a minute
	time.Sleep(300 * time.Millisecond)
	if code := p.Wait(0); code != -1 {
		t.Fatalf("exited (%d) before the second signal; the test shows nothing", code)
	}
	_ = p.Signal(syscall.SIGTERM)
	if code := p.Wait(5 * time.Second); code == -1 {
		t.Fatal("a second SIGTERM did not force the exit within 5 s")
	}
}
