package handlers_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/config"
	"parley/handlers/handlerstest"
)

// relayUpstreamEnv, when set, makes this test binary the relay benchmark's fake upstream (TestMain).
const relayUpstreamEnv = "PARLEY_RELAY_UPSTREAM"

func TestMain(m *testing.M) {
	if os.Getenv(relayUpstreamEnv) != "" {
		serveRelayUpstream()
		return
	}
	os.Exit(m.Run())
}

// relayDeltas is what the relay upstream streams for every call: 2,000 short deltas.
func relayDeltas() []string {
	deltas := make([]string, 2000)
	for i := range deltas {
		deltas[i] = fmt.Sprintf("w%d ", i)
	}
	return deltas
}

// serveRelayUpstream serves the fake upstream on a free local port, prints its URL, then one line
// "<started> <first delta> <finished>" (Unix nanoseconds) per reply, until stdin closes.
func serveRelayUpstream() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	deltas := relayDeltas()
	up := &handlerstest.Upstream{OnDone: func(started, first, finished time.Time) {
		fmt.Printf("%d %d %d\n", started.UnixNano(), first.UnixNano(), finished.UnixNano())
	}}
	fmt.Printf("http://%s\n", ln.Addr())
	go func() {
		_ = http.Serve(ln, up.Handler(func(int64) handlerstest.Reply { return handlerstest.Reply{Deltas: deltas} }))
	}()
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// relayTiming is one reply's timing as the upstream process saw it.
type relayTiming struct{ started, firstDelta, finished time.Time }

// startRelayUpstream runs the fake upstream in its own process, as a real one would be, so its
// work does not share Parley's Go scheduler; it returns its URL and its replies' timings.
func startRelayUpstream(b *testing.B) (string, <-chan relayTiming) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), relayUpstreamEnv+"=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		b.Fatal("the upstream process printed no URL")
	}
	url := lines.Text()
	timings := make(chan relayTiming, 64)
	go func() {
		for lines.Scan() {
			var s, f, e int64
			if _, err := fmt.Sscan(lines.Text(), &s, &f, &e); err == nil {
				timings <- relayTiming{time.Unix(0, s), time.Unix(0, f), time.Unix(0, e)}
			}
		}
	}()
	return url, timings
}

// BenchmarkRelay measures Parley's streaming overhead: a local fake upstream (its own process)
// emits 2,000 deltas as fast as it can, and an SSE client of Parley waits for the completed answer.
// Reported per answer: upstream-ms (the upstream's own time), parley-ms (upstream start → the
// client has the completed answer), ratio (parley/upstream; target ≤ 1.2), first-text-ms (median of
// the upstream's first delta → the client's first text; target ≤ 5).
func BenchmarkRelay(b *testing.B) {
	upstreamURL, timings := startRelayUpstream(b)
	app := handlerstest.Start(b, handlerstest.WithUpstream(&handlerstest.Upstream{URL: upstreamURL}),
		func(c *config.Config) { c.MessagesPerMinute = 1_000_000 })
	c := app.Client(b)
	c.SignUp("bench@example.com", "correct horse")
	first := htmxPost(c, "/chat/messages", url.Values{"query": {"warm up"}, "idempotency_key": {"warm"}})
	var exchangeID int64
	fmt.Sscanf(first.Header.Get("HX-Push-Url"), "/sessions/%d/chat", &exchangeID)
	waitIdle(b, app, exchangeID)
	<-timings // the warm-up reply

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
				var up relayTiming
				select {
				case up = <-timings:
				case <-time.After(5 * time.Second):
					b.Fatal("the upstream process reported no timing")
				}
				upstreamTotal += up.finished.Sub(up.started)
				parleyTotal += ev.at.Sub(up.started)
				firstText = append(firstText, sawText.Sub(up.firstDelta))
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
