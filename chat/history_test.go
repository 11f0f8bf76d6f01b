package chat

import (
	"testing"

	"parley/db"
)

// The earlier turns sent to the model hold answers only: reasoning an old answer kept inline as
// <think>…</think> (stored before the tags were read) stays out.
func TestHistorySentToTheModelLeavesOutInlineReasoning(t *testing.T) {
	g := &Generator{}
	msgs := []db.Message{
		{ID: 1, Role: db.RoleUser, Content: "why tides?"},
		{ID: 2, Role: db.RoleAssistant, Content: "<think>The Moon.</think>\n\nThe Moon pulls the sea."},
		{ID: 3, Role: db.RoleUser, Content: "and the sun?"},
		{ID: 4, Role: db.RoleAssistant},
	}
	got := g.history(msgs, 4)
	if len(got) != 3 || got[1].Content != "The Moon pulls the sea." || got[2].Content != "and the sun?" {
		t.Fatalf("history %+v", got)
	}
}
