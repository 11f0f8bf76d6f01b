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
	"regexp"
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

// serveRelayUpstream serves the fake upstream on a free local port and prints its URL; then, for
// every line read on stdin, it prints the next reply's timing line (handlerstest.FormatRelayTiming),
// waiting for that reply to finish, until stdin closes. Timings are printed when asked, after the
// benchmark has its measurement, so formatting, sending and parsing them never competes with the
// relay being timed. The environment variable's value is the gap between deltas ("0" for none).
func serveRelayUpstream() {
	gap, err := time.ParseDuration(os.Getenv(relayUpstreamEnv))
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	type reply struct {
		started, finished int64
		sent              []int64
	}
	replies := make(chan reply, 1024)
	up := &handlerstest.RelayUpstream{Deltas: relayDeltas(), Gap: gap, OnDone: func(started, finished int64, sent []int64) {
		replies <- reply{started, finished, slices.Clone(sent)}
	}}
	fmt.Printf("http://%s\n", ln.Addr())
	go func() { _ = http.Serve(ln, up) }()
	asks := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for asks.Scan() {
		select {
		case r := <-replies:
			out.WriteString(handlerstest.FormatRelayTiming(r.started, r.finished, r.sent))
		case <-time.After(10 * time.Second):
			out.WriteString("no reply") // not a timing: the benchmark fails saying so
		}
		out.WriteByte('\n')
		out.Flush()
	}
}

// relayTiming is one reply's timing as the upstream process saw it.
type relayTiming struct {
	started, finished time.Time
	sent              []time.Time // when each delta was written
}

// startRelayUpstream runs the fake upstream in its own process, as a real one would be, so its
// work does not share Parley's Go scheduler; it returns its URL and a function that returns the
// next reply's timing, waiting for it.
func startRelayUpstream(b *testing.B, gap time.Duration) (string, func() relayTiming) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), relayUpstreamEnv+"="+gap.String())
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 0, 1<<16), 1<<20)
	if !lines.Scan() {
		b.Fatal("the upstream process printed no URL")
	}
	url := lines.Text()
	next := func() relayTiming {
		if _, err := io.WriteString(stdin, "next\n"); err != nil {
			b.Fatal(err)
		}
		if !lines.Scan() {
			b.Fatal("the upstream process reported no timing")
		}
		s, f, sent, err := handlerstest.ParseRelayTiming(lines.Text())
		if err != nil {
			b.Fatalf("the upstream process reported no timing for the reply: %v", err)
		}
		return relayTiming{s, f, sent}
	}
	return url, next
}

// messageElementID matches a message element's id attribute (views.MessageElementID).
var messageElementID = regexp.MustCompile(`id="message-[0-9]+"`)

// deltasShown finds the highest delta number "w<n>" in an answer's partial (the text is
// re-rendered whole, so the last one says how far it got), or -1.
func deltasShown(el string) int {
	end := strings.Index(el, "</p>")
	if end < 0 {
		return -1
	}
	body := el[:end]
	at := strings.LastIndex(body, "w")
	for at >= 0 && (at+1 >= len(body) || body[at+1] < '0' || body[at+1] > '9') {
		at = strings.LastIndex(body[:at], "w")
	}
	if at < 0 {
		return -1
	}
	n := 0
	for _, r := range body[at+1:] {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}

// BenchmarkRelay measures Parley's streaming overhead: a local fake upstream (its own process)
// emits 2,000 deltas, and an SSE client of Parley waits for the completed answer. fast: as fast as
// the upstream can write (2–3 ms on a 2-core machine it shares with Parley); 6ms: 3 µs apart, the
// speed of the upstream issue 10 measured ("2,000 deltas in ~6 ms"); paced: one delta per
// millisecond. Reported per answer: upstream-ms (the
// upstream's own time), parley-ms (upstream start → the client has the completed answer), ratio
// (parley/upstream; targets ≤ 1.2 fast and 6ms, ≤ 1.05 paced), first-text-ms (median of the upstream's
// first delta → the client's first text; target ≤ 3), and, paced, delta-p95-ms (each delta's time
// from the upstream writing it to the client having it, coalescing included; target ≤ 150).
func BenchmarkRelay(b *testing.B) {
	b.Run("fast", func(b *testing.B) { benchmarkRelay(b, 0) })
	b.Run("6ms", func(b *testing.B) { benchmarkRelay(b, 3*time.Microsecond) })
	b.Run("paced", func(b *testing.B) { benchmarkRelay(b, time.Millisecond) })
}

func benchmarkRelay(b *testing.B, gap time.Duration) {
	upstreamURL, nextTiming := startRelayUpstream(b, gap)
	app := handlerstest.Start(b, handlerstest.WithUpstream(&handlerstest.Upstream{URL: upstreamURL}),
		func(c *config.Config) { c.MessagesPerMinute = 1_000_000 })
	c := app.Client(b)
	c.SignUp("bench@example.com", "correct horse")
	first := htmxPost(c, "/chat/messages", url.Values{"query": {"warm up"}, "idempotency_key": {"warm"}})
	var exchangeID int64
	fmt.Sscanf(first.Header.Get("HX-Push-Url"), "/sessions/%d/chat", &exchangeID)
	waitIdle(b, app, exchangeID)
	nextTiming() // the warm-up reply

	stream := &http.Client{Jar: c.Jar} // no timeout: the stream stays open for the whole run
	res, err := stream.Get(app.URL + fmt.Sprintf("/sessions/%d/events", exchangeID))
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	events := make(chan sseEvent, 1024)
	go readEvents(bufio.NewReader(res.Body), events)

	type seen struct {
		at time.Time
		n  int
	}
	var upstreamTotal, parleyTotal time.Duration
	var firstText, deltaLatency []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		waitIdle(b, app, exchangeID)
		b.StartTimer()
		sent := htmxPost(c, fmt.Sprintf("/sessions/%d/messages", exchangeID), url.Values{"query": {"go"}, "idempotency_key": {fmt.Sprintf("k%d", i)}})
		// The reply inserts the turn's messages, the pending answer last: its id is the marker.
		ids := messageElementID.FindAllString(sent.Body, -1)
		if len(ids) == 0 {
			b.Fatalf("the reply to a message shows no answer: %d %.300s", sent.Status, sent.Body)
		}
		marker := ids[len(ids)-1]
		var sawText time.Time
		var progress []seen
		for ev := range events {
			at := strings.Index(ev.data, marker)
			if at < 0 {
				continue
			}
			// The answer's element, in a partial or in a snapshot (a fast answer may already be
			// complete in the snapshot a stream sends for a new message).
			el := ev.data[at:]
			if sawText.IsZero() && strings.Contains(el[:min(len(el), 2000)], `data-testid="answer"`) {
				sawText = ev.at
			}
			if n := deltasShown(el); n >= 0 {
				progress = append(progress, seen{ev.at, n})
			}
			if !strings.Contains(el[:min(len(el), 300)], `data-status="complete"`) {
				continue
			}
			b.StopTimer()
			up := nextTiming()
			upstreamTotal += up.finished.Sub(up.started)
			parleyTotal += ev.at.Sub(up.started)
			firstText = append(firstText, sawText.Sub(up.sent[0]))
			next := 0 // the first delta not seen yet
			for _, p := range progress {
				for ; gap > 0 && next <= p.n && next < len(up.sent); next++ { // reported when paced
					deltaLatency = append(deltaLatency, p.at.Sub(up.sent[next]))
				}
			}
			break
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(upstreamTotal.Microseconds())/1000/n, "upstream-ms")
	b.ReportMetric(float64(parleyTotal.Microseconds())/1000/n, "parley-ms")
	b.ReportMetric(float64(parleyTotal)/float64(upstreamTotal), "ratio")
	b.ReportMetric(ms(percentile(firstText, 50)), "first-text-ms")
	if gap > 0 {
		b.ReportMetric(ms(percentile(deltaLatency, 95)), "delta-p95-ms")
	}
}

// percentile is the p-th percentile of d (sorted in place), 0 for none.
func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[min(len(d)-1, len(d)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

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
