package handlers_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/db"
	"parley/handlers/handlerstest"
)

func TestDatabaseOutageAnswers503KeepsAnswersAndRecovers(t *testing.T) {
	cluster := handlerstest.NewCluster(t)
	up := slowUpstream(t, 20, 100*time.Millisecond) // 2 s: answers end during the outage
	app, c := signedIn(t, handlerstest.WithUpstream(up), onDatabase(cluster.URL), withLease(2*time.Second))

	// Three answers streaming, each conversation open in a stream.
	var convs []int64
	var streams []chan sseEvent
	for i := range 3 {
		id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"count"}, "idempotency_key": {fmt.Sprint("s", i)}}))
		convs = append(convs, id)
		res, err := (&http.Client{Jar: c.Jar}).Get(c.URL(fmt.Sprintf("/sessions/%d/events", id)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		events := make(chan sseEvent, 1024)
		go readEvents(bufio.NewReader(res.Body), events)
		streams = append(streams, events)
	}

	// A few sends per second, each starting a new conversation, during the whole test.
	type outcome struct {
		at            time.Time
		status        int
		retryAfter    string
		trigger, body string
	}
	var mu sync.Mutex
	var outcomes []outcome
	stopLoad := make(chan struct{})
	var load sync.WaitGroup
	load.Add(1)
	go func() {
		defer load.Done()
		for i := 0; ; i++ {
			select {
			case <-stopLoad:
				return
			case <-time.After(200 * time.Millisecond):
			}
			form := url.Values{"query": {"load"}, "idempotency_key": {fmt.Sprint("load", i)}, "_csrf": {c.CSRFToken()}}
			req, _ := http.NewRequest(http.MethodPost, c.URL("/chat/messages"), strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("HX-Request", "true")
			res, err := c.Client.Do(req)
			if err != nil {
				continue
			}
			res.Body.Close()
			mu.Lock()
			outcomes = append(outcomes, outcome{time.Now(), res.StatusCode, res.Header.Get("Retry-After"), res.Header.Get("HX-Trigger"), ""})
			mu.Unlock()
		}
	}()

	time.Sleep(500 * time.Millisecond)
	cluster.Stop()
	down := time.Now()
	time.Sleep(3 * time.Second)
	// The JSON API says the same with its error code.
	jsonReq, _ := http.NewRequest(http.MethodGet, c.URL("/api/chat/history"), nil)
	jsonRes := c.Do(jsonReq)
	cluster.Start()
	back := time.Now()
	waitFor(t, 10*time.Second, "a send succeeds after the database is back", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(outcomes) > 0 && outcomes[len(outcomes)-1].status == http.StatusOK && outcomes[len(outcomes)-1].at.After(back)
	})
	close(stopLoad)
	load.Wait()

	var unavailable int
	var firstOK time.Time
	for _, o := range outcomes {
		switch {
		case o.status >= 500 && o.status != http.StatusServiceUnavailable:
			t.Errorf("a send answered %d during or after the outage, want 503 or success", o.status)
		case o.status == http.StatusServiceUnavailable:
			unavailable++
			if o.retryAfter == "" || !strings.Contains(o.trigger, "cannot reach its database") {
				t.Errorf("503 without Retry-After (%q) or the database message (%q)", o.retryAfter, o.trigger)
			}
		case o.status == http.StatusOK && o.at.After(back) && firstOK.IsZero():
			firstOK = o.at
		}
	}
	if unavailable == 0 {
		t.Error("no send answered 503 while the database was stopped")
	}
	if wait := firstOK.Sub(back); wait > 5*time.Second {
		t.Errorf("first success %s after the database was back, want ≤ 5 s", wait)
	}
	var body struct{ Error struct{ Code string } }
	if jsonRes.Status != http.StatusServiceUnavailable || json.Unmarshal([]byte(jsonRes.Body), &body) != nil || body.Error.Code != "unavailable" {
		t.Errorf("JSON API during the outage: %d %s, want 503 with code unavailable", jsonRes.Status, jsonRes.Body)
	}
	t.Logf("outage %s: %d sends answered 503; first success %s after restart", back.Sub(down).Round(time.Millisecond),
		unavailable, firstOK.Sub(back).Round(time.Millisecond))

	// Every answer ends: complete with the upstream's whole text, or interrupted/failed with its text.
	waitFor(t, 20*time.Second, "no answer is left unfinished", func() bool {
		var n int
		_ = app.Store.DB.Get(&n, `SELECT count(*) FROM chat_message WHERE status IN ('pending', 'streaming')`)
		return n == 0
	})
	for i, id := range convs {
		m := answerOf(t, app.Store, lastAnswerID(t, app.Store, id))
		t.Logf("answer streaming at the outage ended %s with %d characters", m.Status, len(m.Content))
		switch {
		case m.Status == db.StatusComplete && strings.HasSuffix(m.Content, "w19 "):
		case (m.Status == db.StatusInterrupted || m.Status == db.StatusFailed) && m.Content != "":
		default:
			t.Errorf("answer streaming at the outage ended %s with %q", m.Status, m.Content)
		}
		// Its open stream recovered by itself and shows the end.
		timeout := time.After(15 * time.Second)
	stream:
		for {
			select {
			case ev, ok := <-streams[i]:
				if !ok {
					t.Errorf("stream %d closed instead of recovering", i)
					break stream
				}
				if strings.Contains(ev.data, `data-status="`+m.Status+`"`) && strings.Contains(ev.data, "w1") {
					break stream
				}
			case <-timeout:
				t.Errorf("stream %d did not show the answer's end (%s) within 15 s of the database's return", i, m.Status)
				break stream
			}
		}
		// Nothing stays locked: the conversation takes a new message.
		res := htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"again"}, "idempotency_key": {fmt.Sprint("again", i)}})
		if res.Status != http.StatusOK {
			t.Errorf("conversation %d refuses a new message after the outage: %d", id, res.Status)
		}
	}
}
