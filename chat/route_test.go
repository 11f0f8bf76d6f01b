package chat

import (
	"strings"
	"testing"

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

func TestHistoryKeepsTheFirstMessageAndTheNewestWithinBudget(t *testing.T) {
	var msgs []db.Message
	for i := range 10 {
		msgs = append(msgs,
			db.Message{ID: int64(2*i + 1), Role: db.RoleUser, Content: strings.Repeat("q", 400)},
			db.Message{ID: int64(2*i + 2), Role: db.RoleAssistant, Content: strings.Repeat("a", 400)})
	}
	answer := db.Message{ID: 99, Role: db.RoleAssistant, Status: db.StatusPending}
	msgs = append(msgs, db.Message{ID: 98, Role: db.RoleUser, Content: "now"}, answer)
	g := &Generator{HistoryBudget: 500} // 2,000 bytes: the first (400), the query and three more of 400
	got := g.history(msgs, answer.ID)
	if got[0].Content != msgs[0].Content || got[len(got)-1].Content != "now" {
		t.Fatalf("history does not start with the first message and end with the query: %d messages", len(got))
	}
	if len(got) != 5 {
		t.Fatalf("history has %d messages, want 5 within the budget", len(got))
	}
}
