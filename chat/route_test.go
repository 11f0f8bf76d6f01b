package chat

import (
	"strings"
	"testing"

	"parley/agents"
	"parley/db"
)

func TestRouteHandsPageEditsToTheMarkdownAssistant(t *testing.T) {
	router := db.Agent{ID: 1, Identifier: "auto", AgentType: "router", Name: "Auto"}
	md := db.Agent{ID: 2, Identifier: "markdown-assistant", AgentType: "page_assistant", Name: "Markdown Assistant"}
	cases := []struct {
		query    string
		previous int64
		want     int64
	}{
		{"Please rewrite the introduction section of my markdown", 0, 2},
		{"What do I know about tides?", 0, 1},
		{"Which pages mention tides?", 0, 1},
		{"Where is the page with the kubernetes section?", 0, 1}, // one keyword is not enough
		{"how do I edit a document?", 0, 1},
		{"and the next section too", 2, 2}, // a follow-up stays with the specialist
		{"and the next section too", 0, 1},
	}
	for _, c := range cases {
		got, handoff := Route(router, []db.Agent{md}, c.query, c.previous)
		if got.ID != c.want {
			t.Errorf("Route(%q) = agent %d, want %d", c.query, got.ID, c.want)
		}
		if (handoff != nil) != (c.want == 2) || handoff != nil && (handoff.From != "auto" || handoff.To != "markdown-assistant" || handoff.Reason == "") {
			t.Errorf("Route(%q) handoff = %+v", c.query, handoff)
		}
	}
	if got, h := Route(md, []db.Agent{router}, "rewrite the markdown section", 0); got.ID != 2 || h != nil {
		t.Error("a non-router agent handed off")
	}
}

// The history keeps the first question and its answer, then the newest whole turns within the
// budget, then the query: user and assistant in turn.
func TestHistoryKeepsTheFirstTurnAndTheNewestWithinBudget(t *testing.T) {
	var msgs []db.Message
	for i := range 10 {
		q := int64(2*i + 1)
		msgs = append(msgs,
			db.Message{ID: q, Role: db.RoleUser, Content: strings.Repeat("q", 400)},
			db.Message{ID: q + 1, ParentID: &q, Role: db.RoleAssistant, Content: strings.Repeat("a", 400)})
	}
	answer := db.Message{ID: 99, Role: db.RoleAssistant, Status: db.StatusPending}
	msgs = append(msgs, db.Message{ID: 98, Role: db.RoleUser, Content: "now"}, answer)
	// 2,000 bytes: the first turn (800), the query, the last turn (800); the answer before it
	// would fit, but not its question, so it is left out.
	g := &Generator{HistoryBudget: 500}
	got := g.history(msgs, answer.ID)
	if got[0].Content != msgs[0].Content || got[1].Content != msgs[1].Content || got[len(got)-1].Content != "now" {
		t.Fatalf("history does not start with the first turn and end with the query: %d messages", len(got))
	}
	if len(got) != 5 {
		t.Fatalf("history has %d messages, want 5 within the budget", len(got))
	}
	for i, m := range got {
		if want := []string{agents.RoleUser, agents.RoleAssistant}[i%2]; m.Role != want {
			t.Fatalf("message %d is %s, want %s", i, m.Role, want)
		}
	}
}

// A question whose answer has no text (failed or stopped before any) is sent with the next one as
// one user message, so the roles still alternate and no question is lost.
func TestHistorySendsAQuestionWithoutAnswerWithTheNextOne(t *testing.T) {
	one := int64(1)
	msgs := []db.Message{
		{ID: 1, Role: db.RoleUser, Content: "first"},
		{ID: 2, ParentID: &one, Role: db.RoleAssistant, Content: "reply"},
		{ID: 3, Role: db.RoleUser, Content: "failed"},
		{ID: 4, Role: db.RoleAssistant, Status: db.StatusFailed},
		{ID: 5, Role: db.RoleUser, Content: "again"},
		{ID: 6, Role: db.RoleAssistant, Status: db.StatusPending},
	}
	got := (&Generator{HistoryBudget: 6000}).history(msgs, 6)
	if len(got) != 3 || got[2].Role != agents.RoleUser || got[2].Content != "failed\n\nagain" {
		t.Fatalf("history %+v", got)
	}
}
