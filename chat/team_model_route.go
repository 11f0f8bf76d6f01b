package chat

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"parley/agents"
	"parley/db"
)

// teamRouteTimeout bounds the model's routing call; past it the description router's pick stands.
const teamRouteTimeout = 20 * time.Second

// selectAgentTool returns the select_agent tool for a team's members: the structured output of a
// routing call, {"agent": "<identifier>", "reason": "<why>"}.
func selectAgentTool(members []db.Agent) agents.Tool {
	ids := make([]string, len(members))
	for i, m := range members {
		ids[i] = m.Identifier
	}
	return agents.Tool{
		Name:        "select_agent",
		Description: "Choose the team member who should answer the person's message.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"agent":  map[string]any{"type": "string", "enum": ids, "description": "the member's identifier"},
				"reason": map[string]any{"type": "string", "description": "one short sentence: why this member"},
			},
			"required": []string{"agent", "reason"},
		},
	}
}

// RouteTeamWithModel asks the model which member answers: a routing call that lists the members
// (identifier, name, description) and offers the select_agent tool; a reply that writes the same
// JSON as text is accepted too. ok is false when the call fails or names no member, and the caller
// keeps the description router's choice.
func RouteTeamWithModel(ctx context.Context, p agents.Provider, members []db.Agent, query, previousAnswer string) (db.Agent, *Handoff, bool) {
	ctx, cancel := context.WithTimeout(ctx, teamRouteTimeout)
	defer cancel()
	var list strings.Builder
	for _, m := range members {
		list.WriteString("- " + m.Identifier + ": " + m.Name + ". " + m.Description + "\n")
	}
	system := "You route a person's message to the one team member best placed to answer it. The members:\n" + list.String() +
		"Call select_agent, or reply with only the JSON {\"agent\": \"<identifier>\", \"reason\": \"<one sentence>\"}."
	msgs := []agents.Message{}
	if previousAnswer != "" {
		msgs = append(msgs, agents.Message{Role: agents.RoleAssistant, Content: previousAnswer})
	}
	msgs = append(msgs, agents.Message{Role: agents.RoleUser, Content: query})
	res, err := p.Stream(ctx, agents.Request{System: system, Messages: msgs, Tools: []agents.Tool{selectAgentTool(members)}, MaxTokens: 200},
		func(agents.Event) error { return nil })
	if err != nil {
		return db.Agent{}, nil, false
	}
	raw := strings.TrimSpace(res.Content)
	for _, call := range res.ToolCalls {
		if call.Name == "select_agent" {
			raw = call.Arguments
		}
	}
	raw = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(raw, "```json"), "```"), "```")
	var pick struct{ Agent, Reason string }
	if json.Unmarshal([]byte(strings.TrimSpace(raw)), &pick) != nil {
		return db.Agent{}, nil, false
	}
	for _, m := range members {
		if m.Identifier == pick.Agent {
			reason := strings.TrimSpace(pick.Reason)
			if reason == "" {
				reason = "The router model chose " + m.Name + "."
			}
			return m, &Handoff{From: "router", To: m.Identifier, Reason: reason}, true
		}
	}
	return db.Agent{}, nil, false
}

// routeTeam lets a model-backed router re-check the description router's pick for a team's turn
// (job.Team holds the usable members when the person left the choice to Auto); the offline provider
// keeps the pick. A different choice is recorded on the answer and published.
func (g *Generator) routeTeam(ctx context.Context, job Job, history []db.Message) db.Agent {
	if g.Provider.Name() == agents.ProviderOffline {
		return job.Agent
	}
	previous := ""
	if i := previousAnswerIndex(history, job.AnswerID); i >= 0 {
		previous = history[i].Content
	}
	chosen, handoff, ok := RouteTeamWithModel(ctx, g.Provider, job.Team, lastQuery(history, job.AnswerID), previous)
	if !ok {
		return job.Agent
	}
	return g.handOff(ctx, job, chosen, handoff)
}

// previousAnswerIndex is the index of the last assistant answer before answerID, or -1.
func previousAnswerIndex(history []db.Message, answerID int64) int {
	last := -1
	for i, m := range history {
		if m.ID == answerID {
			break
		}
		if m.Role == db.RoleAssistant && m.Content != "" {
			last = i
		}
	}
	return last
}
