package chat

import (
	"slices"
	"strings"
	"unicode"

	"parley/db"
)

// Handoff is a router's decision to pass a turn to a specialist, stored in the answer's metadata
// as handoff_info, e.g. {"from": "auto", "to": "markdown-assistant", "reason": "…"}.
type Handoff struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason"`
}

// specialistKeywords are the words that send a query to an agent_type. Words are matched after
// lower-casing and dropping a plural "s".
var specialistKeywords = map[string][]string{
	"page_assistant": {"markdown", "section", "heading", "rewrite", "rephrase", "proofread",
		"paragraph", "outline", "typo", "wording"},
}

// Route picks who answers a turn. A router hands the turn to the specialist whose keywords the
// query matches at least twice, or once when that specialist answered the previous turn (a
// follow-up stays with it); otherwise the router answers itself. Other agents always answer
// themselves. Deterministic, so it works the same with the offline provider and with a model.
func Route(agent db.Agent, specialists []db.Agent, query string, previousAgentID int64) (db.Agent, *Handoff) {
	if agent.AgentType != "router" {
		return agent, nil
	}
	words := keywordSet(query)
	best, bestHits := db.Agent{}, 0
	var bestMatched []string
	for _, s := range specialists {
		var matched []string
		for _, k := range specialistKeywords[s.AgentType] {
			if words[k] {
				matched = append(matched, k)
			}
		}
		hits := len(matched)
		if s.ID == previousAgentID && hits > 0 {
			hits++ // a follow-up to the specialist's own answer
		}
		if hits > bestHits {
			best, bestHits, bestMatched = s, hits, matched
		}
	}
	if bestHits < 2 {
		return agent, nil
	}
	return best, &Handoff{
		From:   agent.Identifier,
		To:     best.Identifier,
		Reason: "The question is about " + strings.Join(bestMatched, ", ") + ", which " + best.Name + " handles.",
	}
}

// keywordSet is the set of lower-case words of s, each without a plural "s".
func keywordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) > 3 {
			w = strings.TrimSuffix(w, "s")
		}
		out[w] = true
	}
	return out
}

// previousAnswerAgent is the agent that answered the turn before answerID, or 0.
func previousAnswerAgent(history []db.Message, answerID int64) int64 {
	i := slices.IndexFunc(history, func(m db.Message) bool { return m.ID == answerID })
	for j := i - 1; j >= 0; j-- {
		if history[j].Role == db.RoleAssistant && history[j].AgentID != nil {
			return *history[j].AgentID
		}
	}
	return 0
}

// lastQuery is the user message just before answerID.
func lastQuery(history []db.Message, answerID int64) string {
	i := slices.IndexFunc(history, func(m db.Message) bool { return m.ID == answerID })
	for j := i - 1; j >= 0; j-- {
		if history[j].Role == db.RoleUser {
			return history[j].Content
		}
	}
	return ""
}
