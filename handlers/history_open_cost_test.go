package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"parley/config"
	"parley/db/dbtest"
	"parley/handlers/handlerstest"
)

// Opening a conversation that was regenerated runs as many statements as opening one that never
// branched: its window statement also reads the ‹n/m› versions of the shown messages, so there is
// no per-message, per-branch or extra versions query, whatever its length (issue 11).
func TestOpeningABranchedConversationRunsAsManyStatementsAsANeverBranchedOne(t *testing.T) {
	var log *dbtest.StatementLog
	up := handlerstest.FakeOpenAI(t, func(n int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{fmt.Sprintf("answer %d", n)}}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up), func(cfg *config.Config) { log = dbtest.LogStatements(t, cfg.DatabaseURL) })
	conversation := func(regenerate bool) int64 {
		id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"first question"}, "idempotency_key": {fmt.Sprint("a", regenerate)}}))
		answer := waitAnswer(t, app, id)
		if regenerate {
			if res := htmxPost(c, fmt.Sprintf("/sessions/%d/messages/%d/regenerate", id, answer.ID), url.Values{}); res.Status != http.StatusOK {
				t.Fatalf("regenerate: %d %s", res.Status, res.Body)
			}
			answer = waitAnswer(t, app, id)
		}
		htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"second question"}, "idempotency_key": {fmt.Sprint("b", regenerate)}})
		waitAnswer(t, app, id)
		return id
	}
	linear, branched := conversation(false), conversation(true)
	numbers := regexp.MustCompile(`\$\d+|\d+`)
	open := func(id int64, versions string) []string {
		c.Get(fmt.Sprintf("/sessions/%d/chat", id)) // the session's once-a-minute touch, if due
		settledStatements(log, log.Mark())          // the earlier answers' late batched NOTIFY
		mark := log.Mark()
		res := c.Get(fmt.Sprintf("/sessions/%d/chat", id))
		if res.Status != http.StatusOK || !strings.Contains(res.Body, "second question") {
			t.Fatalf("open %d: %d", id, res.Status)
		}
		if got := doc(t, res.Body).Find("[data-testid=version-label]").Text(); got != versions {
			t.Fatalf("open %d: version labels %q, want %q", id, got, versions)
		}
		var out []string
		for _, s := range log.Since(mark) {
			if strings.HasPrefix(s.Text, "SELECT pg_notify(") {
				continue // the notifier's batch of an earlier write, not the page's
			}
			out = append(out, numbers.ReplaceAllString(strings.Join(strings.Fields(s.Text), " "), "N"))
		}
		return out
	}
	l, b := open(linear, ""), open(branched, "2/2")
	differ := 0
	for i := range min(len(l), len(b)) {
		if l[i] != b[i] {
			differ++
		}
	}
	if len(b) != len(l) || differ != 1 {
		t.Fatalf("opening the branched conversation ran %d statements (%d unlike the other's), the never-branched one %d; want the same but for the window\nnever branched:\n%s\nbranched:\n%s",
			len(b), differ, len(l), strings.Join(l, "\n"), strings.Join(b, "\n"))
	}
}
