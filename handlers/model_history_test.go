package handlers_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"parley/db"
	"parley/handlers/handlerstest"
)

// rolesSent returns the roles and texts of the messages of the upstream's last request.
func rolesSent(t *testing.T, u *handlerstest.Upstream) (roles []string, texts []string) {
	t.Helper()
	msgs, _ := u.LastRequest()["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		roles = append(roles, fmt.Sprint(mm["role"]))
		texts = append(texts, fmt.Sprint(mm["content"]))
	}
	return roles, texts
}

// checkAlternates fails unless the roles are a system prompt, then user and assistant strictly in
// turn, ending with the user's question: what chat templates of local models (Mistral, Gemma,
// Llama 2 on vLLM, llama.cpp, TGI) demand, answering 400 "Conversation roles must alternate
// user/assistant/user/assistant/..." otherwise.
func checkAlternates(t *testing.T, label string, roles, texts []string, lastQuery string) {
	t.Helper()
	if len(roles) < 2 || roles[0] != "system" {
		t.Fatalf("%s: roles %v", label, roles)
	}
	for i, r := range roles[1:] {
		if want := []string{"user", "assistant"}[i%2]; r != want {
			t.Fatalf("%s: message %d of %d is %s, want %s: roles %v…", label, i+1, len(roles), r, want, roles[:min(len(roles), i+3)])
		}
	}
	if roles[len(roles)-1] != "user" || !strings.HasSuffix(texts[len(texts)-1], lastQuery) {
		t.Fatalf("%s: the last message is %s %q, want the question %q", label, roles[len(roles)-1], texts[len(texts)-1], lastQuery)
	}
}

// The history a turn sends alternates questions and answers, whatever left an answer out: an
// answer that failed before any text, the history budget cutting between a question and its
// answer, or the row limit of a long conversation. Two questions in a row once went to the model
// (a local model's server refuses them), and a kept answer's question could be cut off.
func TestHistorySentToTheModelAlternatesQuestionsAndAnswers(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(call int64) handlerstest.Reply {
		if call == 2 {
			return handlerstest.Reply{Status: 400} // not retried
		}
		return handlerstest.Reply{Deltas: []string{fmt.Sprintf("answer %d", call)}}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	ex := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"first question"}, "idempotency_key": {"k0"}}))
	waitAnswer(t, app, ex)
	sent := 0
	send := func(query string) {
		t.Helper()
		sent++
		res := htmxPost(c, fmt.Sprintf("/sessions/%d/messages", ex), url.Values{"query": {query}, "idempotency_key": {fmt.Sprintf("k%d", sent)}})
		if res.Status != 200 {
			t.Fatalf("sending %q: %d %s", query, res.Status, res.Body)
		}
		waitAnswer(t, app, ex)
	}
	send("this one fails")
	if m := waitAnswer(t, app, ex); m.Status != db.StatusFailed || m.Content != "" {
		t.Fatalf("the second answer is %s %q, want failed without text", m.Status, m.Content)
	}
	send("after the failure")
	roles, texts := rolesSent(t, up)
	checkAlternates(t, "after a failed answer", roles, texts, "after the failure")
	if !strings.Contains(strings.Join(texts, "\n"), "this one fails") {
		t.Fatalf("the unanswered question is not sent: %q", texts)
	}

	// Long answers: the budget (6,000 tokens ≈ 24,000 bytes) ends inside the latest turns.
	for _, size := range []int{4999, 5003} {
		seedTurns(t, app, ex, 10, strings.Repeat("x", size))
		q := fmt.Sprintf("after answers of %d bytes", size)
		send(q)
		roles, texts = rolesSent(t, up)
		checkAlternates(t, q, roles, texts, q)
		if !strings.HasPrefix(texts[1], "first question") {
			t.Fatalf("%s: the first question is not sent first: %q", q, texts[1])
		}
	}
	// Short messages past the row limit (1,000 messages).
	seedTurns(t, app, ex, 520, "ok")
	send("after 1,100 messages")
	roles, texts = rolesSent(t, up)
	checkAlternates(t, "after 1,100 messages", roles, texts, "after 1,100 messages")
}
