package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"parley/config"
	"parley/db"
	"parley/handlers/handlerstest"
)

// An upstream that accepts the request and never sends a byte, or stalls halfway, fails the answer
// within the configured PARLEY_UPSTREAM_* time (not the 5-minute answer timeout), says what
// happened, and keeps the text that came.
func TestSilentUpstreamFailsWithinTheConfiguredTime(t *testing.T) {
	cases := []struct {
		name, wantText, wantMessage string
		reply                       handlerstest.Reply
	}{
		{"silent after accepting", "", "The model sent nothing for 400ms after the request",
			handlerstest.Reply{Hang: true}},
		{"stalls halfway", "Half way", "The model sent nothing for 600ms after it started answering",
			handlerstest.Reply{Deltas: []string{"Half", " way"}, Hang: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply { return tc.reply })
			app, c := signedIn(t, handlerstest.WithUpstream(up), func(c *config.Config) {
				c.UpstreamFirstByteTimeout, c.UpstreamIdleTimeout = 400*time.Millisecond, 600*time.Millisecond
			})
			started := time.Now()
			id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"hello?"}, "idempotency_key": {"a"}}))
			m := waitAnswer(t, app, id)
			took := time.Since(started)
			if m.Status != db.StatusFailed || m.Content != tc.wantText {
				t.Fatalf("status %s content %q, want failed keeping %q", m.Status, m.Content, tc.wantText)
			}
			var meta struct {
				Error struct{ Kind, Message string }
			}
			if err := json.Unmarshal(m.Metadata, &meta); err != nil || meta.Error.Kind != "timeout" || !strings.Contains(meta.Error.Message, tc.wantMessage) {
				t.Fatalf("metadata %s, want a timeout saying %q", m.Metadata, tc.wantMessage)
			}
			if took > 4*time.Second {
				t.Fatalf("the failure showed after %s, want soon after the limit", took)
			}
			page := c.Get(fmt.Sprintf("/sessions/%d/chat", id))
			if !strings.Contains(page.Body, "The model sent nothing for") {
				t.Fatalf("the conversation page does not show the reason:\n%s", page.Body)
			}
		})
	}
}
