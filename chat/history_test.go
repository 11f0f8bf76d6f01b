package chat

import (
	"strings"
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

// A history cut by its budget right after a question kept the first question and that one in a
// row, which strict chat templates (Mistral's, Gemma's) refuse; the two are sent as one question.
func TestHistoryCutByItsBudgetStillAlternatesQuestionsAndAnswers(t *testing.T) {
	g := &Generator{HistoryBudget: 10} // 40 bytes
	long := strings.Repeat("tides ", 20)
	msgs := []db.Message{
		{ID: 1, Role: db.RoleUser, Content: "first"},
		{ID: 2, Role: db.RoleAssistant, Content: long},
		{ID: 3, Role: db.RoleUser, Content: "second"},
		{ID: 4, Role: db.RoleAssistant, Content: "short"},
		{ID: 5, Role: db.RoleUser, Content: "now"},
		{ID: 6, Role: db.RoleAssistant},
	}
	got := g.history(msgs, 6)
	var roles []string
	for _, m := range got {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, " ") != "user assistant user" || got[0].Content != "first\n\nsecond" || got[1].Content != "short" || got[2].Content != "now" {
		t.Fatalf("history %+v", got)
	}
}
