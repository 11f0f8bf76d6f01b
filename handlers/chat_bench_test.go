package handlers_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/config"
	"parley/handlers/handlerstest"
)

// BenchmarkRelay measures Parley's streaming overhead: a local fake upstream emits 2,000 deltas as
// fast as it can, and an SSE client of Parley waits for the completed answer. Reported per answer:
// upstream-ms (the upstream's own time), parley-ms (upstream start → the client has the completed
// answer), ratio (parley/upstream; target ≤ 1.2), first-text-ms (median of the upstream's first
// delta → the client's first text_delta; target ≤ 5).
func BenchmarkRelay(b *testing.B) {
	deltas := make([]string, 2000)
	for i := range deltas {
		deltas[i] = fmt.Sprintf("w%d ", i)
	}
	up := handlerstest.FakeOpenAI(b, func(int64) handlerstest.Reply { return handlerstest.Reply{Deltas: deltas} })
	app := handlerstest.Start(b, handlerstest.WithUpstream(up), func(c *config.Config) { c.MessagesPerMinute = 1_000_000 })
	c := app.Client(b)
	c.SignUp("bench@example.com", "correct horse")
	first := htmxPost(c, "/chat/messages", url.Values{"query": {"warm up"}, "idempotency_key": {"warm"}})
	var exchangeID int64
	fmt.Sscanf(first.Header.Get("HX-Push-Url"), "/sessions/%d/chat", &exchangeID)
	waitIdle(b, app, exchangeID)

	stream := &http.Client{Jar: c.Jar} // no timeout: the stream stays open for the whole run
	res, err := stream.Get(app.URL + fmt.Sprintf("/sessions/%d/events", exchangeID))
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	events := make(chan sseEvent, 1024)
	go readEvents(bufio.NewReader(res.Body), events)

	var upstreamTotal, parleyTotal time.Duration
	var firstText []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		htmxPost(c, fmt.Sprintf("/sessions/%d/messages", exchangeID), url.Values{"query": {"go"}, "idempotency_key": {fmt.Sprintf("k%d", i)}})
		var answerID int64
		if err := app.Store.DB.Get(&answerID, `SELECT max(id) FROM chat_message WHERE role = 'assistant'`); err != nil {
			b.Fatal(err)
		}
		marker := fmt.Sprintf(`id="message-%d"`, answerID)
		var sawText time.Time
		for ev := range events {
			at := strings.Index(ev.data, marker)
			if at < 0 {
				continue
			}
			// The answer's element, in a partial or in a snapshot (a fast answer may already be
			// complete in the snapshot a stream sends for a new message).
			el := ev.data[at:min(len(ev.data), at+2000)]
			if sawText.IsZero() && strings.Contains(el, `data-testid="answer"`) {
				sawText = ev.at
			}
			if strings.Contains(el[:min(len(el), 300)], `data-status="complete"`) {
				started, firstDelta, finished := up.Timing()
				upstreamTotal += finished.Sub(started)
				parleyTotal += ev.at.Sub(started)
				firstText = append(firstText, sawText.Sub(firstDelta))
				break
			}
		}
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(upstreamTotal.Microseconds())/1000/n, "upstream-ms")
	b.ReportMetric(float64(parleyTotal.Microseconds())/1000/n, "parley-ms")
	b.ReportMetric(float64(parleyTotal)/float64(upstreamTotal), "ratio")
	if len(firstText) > 0 {
		slices.Sort(firstText)
		b.ReportMetric(float64(firstText[len(firstText)/2].Microseconds())/1000, "first-text-ms")
	}
}

type sseEvent struct {
	name, data string
	at         time.Time
}

func readEvents(r *bufio.Reader, out chan<- sseEvent) {
	defer close(out)
	var ev sseEvent
	var data strings.Builder
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if ev.name != "" {
				ev.data, ev.at = data.String(), time.Now()
				out <- ev
			}
			ev, data = sseEvent{}, strings.Builder{}
		case strings.HasPrefix(line, "event: "):
			ev.name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			data.WriteString(line[len("data: "):])
			data.WriteByte('\n')
		}
	}
}

func waitIdle(b *testing.B, app *handlerstest.App, exchangeID int64) {
	for range 500 {
		var busy int
		_ = app.Store.DB.Get(&busy, `SELECT count(*) FROM chat_message WHERE exchange_id = $1 AND status IN ('pending','streaming')`, exchangeID)
		if busy == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Fatal("warm-up answer did not finish")
}
