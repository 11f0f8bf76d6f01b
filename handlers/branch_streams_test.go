package handlers_test

import (
	"bufio"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"parley/handlers/handlerstest"
)

// A conversation open in another tab, on another instance, follows a branch change made here: an
// edit sends its stream a new snapshot of the branch now on screen, without the messages that left
// it. That tab once kept showing the old branch, with the edited version's answer streaming in
// below the question it does not answer.
func TestAnEditElsewhereShowsItsBranchInAnOpenStream(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(call int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{fmt.Sprintf("answer %d", call)}}
	})
	a, c := signedIn(t, handlerstest.WithUpstream(up))
	b := handlerstest.Start(t, handlerstest.WithUpstream(up), onDatabase(a.Config.DatabaseURL))
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"first question"}, "idempotency_key": {"a"}}))
	waitAnswer(t, a, id)
	htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"second question"}, "idempotency_key": {"b"}})
	old := waitAnswer(t, a, id)

	res, err := c.Client.Get(c.URL(fmt.Sprintf("/sessions/%d/events", id)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := make(chan sseEvent, 256)
	go readEvents(bufio.NewReader(res.Body), events)
	if ev := <-events; ev.name != "snapshot" || !strings.Contains(ev.data, "second question") {
		t.Fatalf("first event: %s, want the snapshot", ev.name)
	}

	onB := clientOn(t, b, c)
	if res := htmxPost(onB, fmt.Sprintf("/sessions/%d/messages/%d/edit", id, *old.ParentID), url.Values{"query": {"second, edited"}}); res.Status != 200 {
		t.Fatalf("edit on B: %d %s", res.Status, res.Body)
	}
	oldQuestion := fmt.Sprintf(`id="message-%d"`, *old.ParentID)
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("the stream closed")
			}
			if ev.name == "snapshot" {
				if !strings.Contains(ev.data, "second, edited") || strings.Contains(ev.data, oldQuestion) {
					t.Fatalf("the new snapshot does not show the edited branch: %.2000s", ev.data)
				}
				return
			}
		case <-timeout:
			t.Fatal("the open stream was not sent the edited branch within 10 s")
		}
	}
}
