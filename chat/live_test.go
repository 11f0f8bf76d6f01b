package chat

import (
	"context"
	"strings"
	"testing"
	"time"

	"parley/agents"
	"parley/db"
)

// A stream remembers the live version it last sent and skips a live answer at that version. Two
// answers of an exchange that stream the same number of deltas (or a Retry of one) must therefore
// never reach the same version, or the stream takes the second answer's end for already shown and
// waits for the database instead (BenchmarkRelay's answers are all 2,000 deltas long).
func TestLiveVersionsAreNeverReusedByTheNextAnswer(t *testing.T) {
	g := &Generator{}
	job := Job{ExchangeID: 3, AnswerID: 7, Lease: db.Lease{Holder: "test/1"}}
	seen := map[int64]int{}
	for run := range 3 { // the first answer, then two runs of the same answer id (a Retry)
		w := newAnswerWriter(g, job, context.Background(), time.Now().Add(time.Minute))
		w.finished = true // nothing is stored: this test has no database
		g.live.add(job.ExchangeID, w)
		w.startRound()
		for range 5 {
			if err := w.emit(agents.Event{Kind: agents.EventTextDelta, Text: "w "}); err != nil {
				t.Fatal(err)
			}
			la, ok := g.Live(job.ExchangeID)
			if !ok {
				t.Fatal("no live answer while its writer runs")
			}
			if before, dup := seen[la.Version]; dup {
				t.Fatalf("run %d reached version %d, which run %d already had", run, la.Version, before)
			}
			seen[la.Version] = run
		}
		g.live.remove(job.ExchangeID, w)
	}
}

// A burst of deltas signals a watch once until it reads the answer; the first delta after every
// read signals again, so a watch never misses a change it has not read.
func TestDeltasAfterEveryLiveReadSignalTheWatch(t *testing.T) {
	g := &Generator{}
	job := Job{ExchangeID: 4, AnswerID: 9, Lease: db.Lease{Holder: "test/1"}}
	w := newAnswerWriter(g, job, context.Background(), time.Now().Add(time.Minute))
	w.finished = true // nothing is stored: this test has no database
	g.live.add(job.ExchangeID, w)
	watch := g.WatchLive(job.ExchangeID)
	defer watch.Close()
	signalled := func() bool {
		select {
		case <-watch.Ready():
			return true
		default:
			return false
		}
	}
	delta := func() {
		if err := w.emit(agents.Event{Kind: agents.EventTextDelta, Text: "w "}); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 3 {
		delta()
		if !signalled() {
			t.Fatalf("round %d: the first delta after a read did not signal", round)
		}
		delta()
		delta()
		if signalled() {
			t.Fatalf("round %d: deltas before any read signalled again", round)
		}
		la, _ := g.Live(job.ExchangeID)
		if want := strings.Repeat("w ", 3*(round+1)); la.Content != want {
			t.Fatalf("round %d: live text %q, want %q", round, la.Content, want)
		}
	}
}

// An answer's final write waits until every stream here has sent the end it was signalled (a
// stream that closes counts as done), and never longer than endSendWait for one that does not.
func TestAnAnswersFinalWriteWaitsForTheStreamsHereToSendItsEnd(t *testing.T) {
	g := &Generator{}
	const exchange = 5
	waited := func(e *endSending) time.Duration {
		start := time.Now()
		e.wait()
		return time.Since(start)
	}
	if d := waited(g.live.signalEnd(exchange)); d > time.Millisecond {
		t.Fatalf("with no stream the write waited %s", d)
	}

	sends, closes := g.WatchLive(exchange), g.WatchLive(exchange)
	e := g.live.signalEnd(exchange)
	for _, w := range []*LiveWatch{sends, closes} {
		select {
		case <-w.Ended():
		default:
			t.Fatal("a watch was not told the answer ended")
		}
	}
	go func() {
		time.Sleep(2 * time.Millisecond)
		sends.EndSent()
		sends.EndSent() // reporting twice is harmless
		closes.Close()
	}()
	if d := waited(e); d < 2*time.Millisecond || d >= endSendWait {
		t.Fatalf("the write waited %s for two streams that were done after 2ms", d)
	}

	e = g.live.signalEnd(exchange) // sends never reports this one
	if d := waited(e); d < endSendWait || d > endSendWait+time.Second {
		t.Fatalf("the write waited %s for a stream that never sent the end, want %s", d, endSendWait)
	}
	sends.Close()
}
