package handlers_test

import (
	"bufio"
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

// pacedWords is n deltas "w0 " … "w<n-1> ", for an upstream that sends one every gap.
func pacedWords(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("w%d ", i)
	}
	return out
}

// storedContent is the message's text as the database holds it now.
func storedContent(t *testing.T, app *handlerstest.App, id int64) string {
	t.Helper()
	var s string
	if err := app.Store.DB.Get(&s, `SELECT content FROM chat_message WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return s
}

// openChatEvents opens the conversation's SSE stream as the signed-in client.
func openChatEvents(t *testing.T, app *handlerstest.App, c *handlerstest.Client, exchangeID int64) <-chan sseEvent {
	t.Helper()
	res, err := (&http.Client{Jar: c.Jar}).Get(app.URL + fmt.Sprintf("/sessions/%d/events", exchangeID))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	events := make(chan sseEvent, 1024)
	go readEvents(bufio.NewReader(res.Body), events)
	return events
}

// startConversation posts a first message, waits for its answer and returns the exchange id.
func startConversation(t *testing.T, app *handlerstest.App, c *handlerstest.Client) int64 {
	t.Helper()
	res := htmxPost(c, "/chat/messages", url.Values{"query": {"hello"}, "idempotency_key": {"first"}})
	var id int64
	if _, err := fmt.Sscanf(res.Header.Get("HX-Push-Url"), "/sessions/%d/chat", &id); err != nil {
		t.Fatalf("no conversation: %d %s", res.Status, res.Body)
	}
	waitAnswered(t, app, id)
	return id
}

// waitAnswered waits until no answer of the exchange is pending or streaming in the database.
func waitAnswered(t *testing.T, app *handlerstest.App, exchangeID int64) {
	t.Helper()
	for range 1000 {
		var busy int
		_ = app.Store.DB.Get(&busy, `SELECT count(*) FROM chat_message WHERE exchange_id = $1 AND status IN ('pending','streaming')`, exchangeID)
		if busy == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the answer never finished")
}

func latestAnswer(t *testing.T, app *handlerstest.App) int64 {
	t.Helper()
	var id int64
	if err := app.Store.DB.Get(&id, `SELECT max(id) FROM chat_message WHERE role = 'assistant'`); err != nil {
		t.Fatal(err)
	}
	return id
}

// The JSON API's stream follows a running answer on its instance from memory, as the chat page's
// does: its text events get ahead of the text stored on the 250 ms durable cadence, and the last
// one still holds the whole answer exactly once.
func TestAPIStreamFollowsTheAnswerFromMemoryAheadOfItsStoredText(t *testing.T) {
	words := pacedWords(60)
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: words, Gap: 15 * time.Millisecond}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	_, events := openStream(t, app, c, `{"query": "count"}`)
	ahead, texts := 0, 0
	var last string
	for ev := range events {
		var m struct {
			ID      int64  `json:"id"`
			Role    string `json:"role"`
			Content string `json:"content"`
			Status  string `json:"status"`
		}
		if json.Unmarshal([]byte(ev.data), &m) != nil || m.Role != "assistant" {
			continue
		}
		last = m.Content
		if ev.name != "text_delta" {
			continue
		}
		texts++
		if len(m.Content) > len(storedContent(t, app, m.ID)) {
			ahead++
		}
	}
	if ahead == 0 {
		t.Errorf("none of %d text events was ahead of the stored text: the API stream reads only the database", texts)
	}
	if want := strings.Join(words, ""); last != want {
		t.Errorf("the last answer event holds %q, want %q", last, want)
	}
}

// The reasoning item follows the model from memory on the generating instance: the chat stream
// shows reasoning the database does not hold yet.
func TestReasoningItemFollowsTheModelFromMemory(t *testing.T) {
	thoughts := pacedWords(60)
	up := handlerstest.FakeOpenAI(t, func(call int64) handlerstest.Reply {
		if call == 1 {
			return handlerstest.Reply{Deltas: []string{"Hi."}}
		}
		deltas := append(append([]string{"<think>"}, thoughts...), "</think>", "Done.")
		return handlerstest.Reply{Deltas: deltas, Gap: 15 * time.Millisecond}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	id := startConversation(t, app, c)
	events := openChatEvents(t, app, c, id)
	htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"think"}, "idempotency_key": {"think"}})
	answerID := latestAnswer(t, app)
	ahead, shown := 0, 0
	deadline := time.After(30 * time.Second)
	for done := false; !done; {
		select {
		case <-deadline:
			t.Fatal("the answer did not complete on the stream")
		case ev, ok := <-events:
			if !ok {
				t.Fatal("the stream ended")
			}
			if at := strings.Index(ev.data, `data-role="reasoning"`); at >= 0 {
				if n := deltasShown(ev.data[at:]); n >= 0 {
					shown++
					var stored string
					_ = app.Store.DB.Get(&stored, `SELECT coalesce(string_agg(content, ''), '') FROM chat_message WHERE parent_id = $1 AND role = 'reasoning'`, answerID)
					if !strings.Contains(stored, fmt.Sprintf("w%d ", n)) {
						ahead++
					}
				}
			}
			if at := strings.Index(ev.data, fmt.Sprintf(`id="message-%d"`, answerID)); at >= 0 && strings.Contains(ev.data[at:min(len(ev.data), at+300)], `data-status="complete"`) {
				done = true
			}
		}
	}
	if ahead == 0 {
		t.Errorf("none of %d reasoning updates was ahead of the stored reasoning: it follows only the database", shown)
	}
}

// An answer's end is sent once to a stream on its instance: shown from memory when the answer
// ends, it is not sent again when the final write is read back.
func TestFinishedAnswerIsSentOnceToAStreamOnItsInstance(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: pacedWords(20), Gap: 2 * time.Millisecond}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	id := startConversation(t, app, c)
	events := openChatEvents(t, app, c, id)
	htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"again"}, "idempotency_key": {"again"}})
	answerID := latestAnswer(t, app)
	marker := fmt.Sprintf(`id="message-%d"`, answerID)
	finished := 0
	quiet := time.After(20 * time.Second)
	for waiting := true; waiting; {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("the stream ended")
			}
			at := strings.Index(ev.data, marker)
			if ev.name == "snapshot" || at < 0 || !strings.Contains(ev.data[at:min(len(ev.data), at+300)], `data-status="complete"`) {
				continue
			}
			if finished++; finished == 1 {
				quiet = time.After(time.Second) // the stored final state, read back, comes well within this
			}
		case <-quiet:
			waiting = false
		}
	}
	waitAnswered(t, app, id)
	if finished != 1 {
		t.Errorf("the finished answer was sent %d times, want once", finished)
	}
}

// A follow-up sent the moment the stream shows the answer finished is accepted: the end is shown
// from memory just before the final write lands, and the send waits for that write rather than
// finding the answer unfinished (409).
func TestFollowUpSentTheMomentTheAnswerEndsIsAccepted(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: pacedWords(2000)} // a long text: its final write takes a while
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up), func(cfg *config.Config) { cfg.MessagesPerMinute = 1000 })
	id := startConversation(t, app, c)
	events := openChatEvents(t, app, c, id)
	for round := range 5 {
		waitAnswered(t, app, id)
		htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"go"}, "idempotency_key": {fmt.Sprintf("go%d", round)}})
		marker := fmt.Sprintf(`id="message-%d"`, latestAnswer(t, app))
		deadline := time.After(30 * time.Second)
	wait:
		for {
			select {
			case <-deadline:
				t.Fatal("the answer did not complete on the stream")
			case ev, ok := <-events:
				if !ok {
					t.Fatal("the stream ended")
				}
				if at := strings.Index(ev.data, marker); at >= 0 && strings.Contains(ev.data[at:min(len(ev.data), at+300)], `data-status="complete"`) {
					break wait
				}
			}
		}
		res := htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"and then?"}, "idempotency_key": {fmt.Sprintf("then%d", round)}})
		if res.Status != http.StatusOK {
			t.Fatalf("round %d: the follow-up sent when the answer showed finished got %d: %s", round, res.Status, res.Body)
		}
	}
}
