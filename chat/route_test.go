package chat

import (
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
		{"Which pages mention tides?", 0, 1}, // one keyword is not enough
		{"and the next section too", 2, 2},   // a follow-up stays with the specialist
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
