package handlers_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"parley/chat"
	"parley/handlers/handlerstest"
)

// eventMessage finds the message an event's partial shows.
var eventMessage = regexp.MustCompile(`id="message-(\d+)"`)

// streamEvents opens the conversation's event stream through c and returns its events after the
// snapshot.
func streamEvents(t *testing.T, c *handlerstest.Client, exchangeID int64) <-chan sseEvent {
	t.Helper()
	res, err := (&http.Client{Jar: c.Jar}).Get(c.URL(fmt.Sprintf("/sessions/%d/events", exchangeID)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	events := make(chan sseEvent, 1024)
	go readEvents(bufio.NewReader(res.Body), events)
	select {
	case ev := <-events:
		if ev.name != "snapshot" {
			t.Fatalf("first event %s, want the snapshot", ev.name)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no snapshot within 15 s")
	}
	return events
}

// eventsUntil collects a stream's events until one satisfies last (included), within 15 s.
func eventsUntil(t *testing.T, events <-chan sseEvent, what string, last func(sseEvent) bool) []sseEvent {
	t.Helper()
	var got []sseEvent
	timeout := time.After(15 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("the stream closed before %s", what)
			}
			got = append(got, ev)
			if last(ev) {
				return got
			}
		case <-timeout:
			t.Fatalf("no %s within 15 s (%d events)", what, len(got))
		}
	}
}

// eventsWithin collects what a stream sends during d.
func eventsWithin(events <-chan sseEvent, d time.Duration) []sseEvent {
	var got []sseEvent
	timeout := time.After(d)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return got
			}
			got = append(got, ev)
		case <-timeout:
			return got
		}
	}
}

func describe(events []sseEvent) string {
	var b strings.Builder
	for _, ev := range events {
		id := ""
		if m := eventMessage.FindStringSubmatch(ev.data); m != nil {
			id = m[1]
		}
		fmt.Fprintf(&b, " %s(message %s)", ev.name, id)
	}
	return b.String()
}

// A finished answer reaches every stream once: the stream on the generating instance (which
// renders it from memory, then reads the final write), a stream on another instance (which follows
// the stored writes), and a stream opened after it finished (whose snapshot has it). Notices of
// changes a stream already shows, such as another instance publishing a write again or a notice
// read only after the final write had landed, send nothing; a real change still goes out, once.
func TestFinishedAnswerReachesEachStreamOnce(t *testing.T) {
	a, c := signedIn(t)
	b := handlerstest.Start(t, onDatabase(a.Config.DatabaseURL))
	cb := clientOn(t, b, c)
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"first"}, "idempotency_key": {"a"}}))
	waitAnswer(t, a, id)

	onA, onB := streamEvents(t, c, id), streamEvents(t, cb, id)
	// The offline agent searches first: the answer is written around a tool call and its output.
	htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"find hello"}, "idempotency_key": {"b"}})
	answer := waitAnswer(t, a, id)
	complete := func(ev sseEvent) bool {
		m := eventMessage.FindStringSubmatch(ev.data)
		return m != nil && m[1] == fmt.Sprint(answer.ID) && strings.Contains(ev.data, `data-status="complete"`)
	}
	streams := map[string]<-chan sseEvent{"generating instance": onA, "other instance": onB}
	for name, events := range streams {
		eventsUntil(t, events, "the finished answer on the "+name, complete)
	}
	streams["stream opened afterwards"] = streamEvents(t, c, id)

	// What another instance would publish again (every message of the conversation), then a real
	// change: a rating stored elsewhere. Notifications are delivered in commit order.
	var ids []int64
	if err := a.Store.DB.Select(&ids, `SELECT id FROM chat_message WHERE exchange_id = $1 ORDER BY position`, id); err != nil {
		t.Fatal(err)
	}
	var pairs []string
	for _, m := range ids {
		pairs = append(pairs, fmt.Sprintf("%d:%d", id, m))
	}
	for range 3 {
		if _, err := a.Store.DB.Exec(`SELECT pg_notify($1, $2)`, chat.NoticeChannel, "elsewhere "+strings.Join(pairs, " ")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Store.DB.Exec(`UPDATE chat_message SET feedback = 'up' WHERE id = $1`, answer.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Store.DB.Exec(`SELECT pg_notify($1, $2)`, chat.NoticeChannel, fmt.Sprintf("elsewhere %d:%d", id, answer.ID)); err != nil {
		t.Fatal(err)
	}
	rated := func(ev sseEvent) bool { return strings.Contains(ev.data, `data-rating="up"`) }
	for name, events := range streams {
		got := eventsUntil(t, events, "the rating on the "+name, rated)
		got = append(got, eventsWithin(events, time.Second)...)
		if len(got) != 1 {
			t.Errorf("%s: %d events after the answer finished, want only the rating:%s", name, len(got), describe(got))
		}
	}
}

// While an answer is generated, the stream on the generating instance sends the finished answer
// once, however its writes and notices interleave (the offline agent's answer has a tool call and
// several writes in a few milliseconds). Run over several answers, so an interleaving that
// re-sends is likely to occur.
func TestGeneratingStreamSendsTheFinishedAnswerOnce(t *testing.T) {
	app, c := signedIn(t)
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"first"}, "idempotency_key": {"first"}}))
	waitAnswer(t, app, id)
	events := streamEvents(t, c, id)
	for turn := range 5 {
		htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"find hello"}, "idempotency_key": {fmt.Sprint(turn)}})
		answer := waitAnswer(t, app, id)
		isAnswer := func(ev sseEvent) bool {
			m := eventMessage.FindStringSubmatch(ev.data)
			return m != nil && m[1] == fmt.Sprint(answer.ID)
		}
		got := eventsUntil(t, events, "the finished answer", func(ev sseEvent) bool {
			return isAnswer(ev) && strings.Contains(ev.data, `data-status="complete"`)
		})
		for _, ev := range eventsWithin(events, 300*time.Millisecond) {
			if isAnswer(ev) {
				t.Fatalf("turn %d: the finished answer was sent again (%s); events of the turn:%s", turn, ev.name, describe(got))
			}
		}
	}
}
