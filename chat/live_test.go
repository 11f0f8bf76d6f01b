package chat

import (
	"context"
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
