package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"parley/db"
	"parley/handlers/handlerstest"
)

// rolesAlternate reports whether a Chat Completions request's messages go user, assistant, user …
// after the system prompt, as strict chat templates (Mistral's, Gemma's under vLLM or llama.cpp)
// require: they answer 400 "Conversation roles must alternate user/assistant/user/assistant/..."
// otherwise.
func rolesAlternate(body string) (bool, []string) {
	var req struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	_ = json.Unmarshal([]byte(body), &req)
	var roles []string
	for _, m := range req.Messages {
		if m.Role != "system" {
			roles = append(roles, m.Role)
		}
	}
	for i, r := range roles {
		if want := []string{"user", "assistant"}[i%2]; r != want {
			return false, roles
		}
	}
	return len(roles)%2 == 1, roles
}

// A question whose answer failed before any text (the model server was down, the person pressed
// Stop at once) left two questions in a row in the history, and a model behind a strict chat
// template then refused every later turn of the conversation. The history sent back keeps the
// roles alternating: the unanswered question goes with the next one.
func TestQuestionAfterAnAnswerThatFailedWithoutTextStillReachesAStrictChatTemplate(t *testing.T) {
	var up *handlerstest.Upstream
	up = handlerstest.FakeOpenAI(t, func(call int64) handlerstest.Reply {
		if call == 1 {
			return handlerstest.Reply{Status: http.StatusBadRequest} // fails with no text
		}
		if ok, _ := rolesAlternate(up.Requests()[call-1]); !ok {
			return handlerstest.Reply{Status: http.StatusBadRequest}
		}
		return handlerstest.Reply{Deltas: []string{"Both ", "answered."}}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"what is a tide?"}, "idempotency_key": {"k1"}}))
	if m := waitAnswer(t, app, id); m.Status != db.StatusFailed || m.Content != "" {
		t.Fatalf("first answer %s %q, want failed without text", m.Status, m.Content)
	}
	if res := htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"and a neap tide?"}, "idempotency_key": {"k2"}}); res.Status != http.StatusOK {
		t.Fatalf("follow-up: %d %s", res.Status, res.Body)
	}
	m := waitAnswer(t, app, id)
	_, roles := rolesAlternate(up.Requests()[len(up.Requests())-1])
	if m.Status != db.StatusComplete || m.Content != "Both answered." {
		t.Fatalf("second answer %s %q (%s); roles sent %v", m.Status, m.Content, m.Metadata, roles)
	}
	var sent struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	_ = json.Unmarshal([]byte(up.Requests()[len(up.Requests())-1]), &sent)
	last := sent.Messages[len(sent.Messages)-1]
	if last.Content != "what is a tide?\n\nand a neap tide?" {
		t.Errorf("last message sent %q, want both questions", last.Content)
	}
}
