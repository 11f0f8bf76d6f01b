package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"parley/db"
	"parley/handlers/handlerstest"
)

// A model that ends its stream well but writes no answer (a reasoning model that stops after its
// reasoning, a server that sends only its end marker) left a blank "complete" answer, with nothing
// to say what happened. It is stored failed, saying so, so the person sees why and can retry.
func TestAnswerWithoutAnyTextIsFailedSayingSo(t *testing.T) {
	cases := []struct {
		name   string
		deltas []string
		want   string
	}{
		{name: "nothing", want: "The model finished without writing any answer."},
		{name: "reasoning only", deltas: []string{"<think>The user greets", " me.</think>", "\n\n"}, want: "The model finished its reasoning without writing an answer."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply { return handlerstest.Reply{Deltas: tc.deltas} })
			app, c := signedIn(t, handlerstest.WithUpstream(up))
			id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"hi"}, "idempotency_key": {"k"}}))
			m := waitAnswer(t, app, id)
			var meta struct {
				FinishReason string `json:"finish_reason"`
				Error        struct{ Kind, Message string }
			}
			_ = json.Unmarshal(m.Metadata, &meta)
			if m.Status != db.StatusFailed || strings.TrimSpace(m.Content) != "" || meta.Error.Kind != "empty_answer" || !strings.HasPrefix(meta.Error.Message, tc.want) || meta.FinishReason != "stop" {
				t.Fatalf("answer %s %q %s, want failed (empty_answer) saying %q", m.Status, m.Content, m.Metadata, tc.want)
			}
			if page := c.Get(fmt.Sprintf("/sessions/%d/chat", id)); !strings.Contains(page.Body, tc.want) {
				t.Errorf("the conversation page does not say %q", tc.want)
			}
		})
	}
}
