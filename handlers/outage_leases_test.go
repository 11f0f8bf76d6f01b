package handlers_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"parley/db"
	"parley/handlers/handlerstest"
)

// An outage longer than the lease expires every lease, because nobody can renew one. When the
// database is back, the instances' reapers must not take the answers of live instances for
// abandoned: an answer that finished during the outage ends complete with all its text. Before,
// whichever reaper ran first after the outage marked them interrupted with the text of the last
// write before it (18 of 90 characters in one reproduction), and the generating instance's final
// write was then refused.
func TestAnswersFinishedDuringAnOutageLongerThanTheLeaseEndComplete(t *testing.T) {
	const lease = time.Second
	cluster := handlerstest.NewCluster(t)
	up := slowUpstream(t, 10, 50*time.Millisecond) // 0.5 s: each answer ends during the outage
	a, c := signedIn(t, handlerstest.WithUpstream(up), onDatabase(cluster.URL), withLease(lease))
	b := handlerstest.Start(t, handlerstest.WithUpstream(up), onDatabase(cluster.URL), withLease(lease))
	onB := clientOn(t, b, c)
	for round := range 3 { // each reaper runs every 200 ms: three rounds leave a race no chance to hide
		var ids []int64
		for i := range 4 {
			client := c
			if i%2 == 1 {
				client = onB
			}
			ids = append(ids, exchangeFromPush(t, htmxPost(client, "/chat/messages", url.Values{"query": {"count"}, "idempotency_key": {fmt.Sprint("r", round, "i", i)}})))
		}
		for _, id := range ids {
			answer := lastAnswerID(t, a.Store, id)
			waitFor(t, 5*time.Second, "the answer streams", func() bool { return answerOf(t, a.Store, answer).Content != "" })
		}
		cluster.Stop()
		time.Sleep(3 * lease)
		cluster.Start()
		for _, id := range ids {
			answer := lastAnswerID(t, a.Store, id)
			waitFor(t, 15*time.Second, "the answer is finished", func() bool {
				s := answerOf(t, a.Store, answer).Status
				return s != db.StatusStreaming && s != db.StatusPending
			})
			if m := answerOf(t, a.Store, answer); m.Status != db.StatusComplete || !strings.HasSuffix(m.Content, "w9 ") {
				t.Errorf("round %d: conversation %d ended %s with %q, want complete with all its text", round, id, m.Status, m.Content)
			}
		}
	}
}
