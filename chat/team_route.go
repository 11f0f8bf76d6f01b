package chat

import (
	"slices"
	"strings"

	"parley/db"
)

// stopWords are words too common to say which member a query is for.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "that": true, "this": true, "what": true, "how": true,
	"can": true, "you": true, "your": true, "are": true, "about": true, "from": true, "have": true, "please": true,
	"help": true, "question": true, "answer": true, "answers": true, "agent": true, "who": true, "why": true,
	"when": true, "where": true, "does": true, "into": true, "any": true, "all": true, "our": true, "their": true,
}

// RouteTeam picks the team member that answers a query (SPEC.md §4 "Teams"). A pinned member (the
// person's select_agent, 0 for Auto) answers when it is a usable member. Otherwise the router
// matches the query's words against each usable member's name and description and picks the member
// with the most shared words (the earlier member on a tie, the first usable member when nothing
// matches), recording the choice as a Handoff from "router". ok is false when no member is usable.
func RouteTeam(members []db.Agent, query string, pinned int64) (chosen db.Agent, handoff *Handoff, ok bool) {
	var usable []db.Agent
	for _, m := range members {
		if m.DisabledAt == nil && m.DeletedAt == nil {
			usable = append(usable, m)
		}
	}
	if len(usable) == 0 {
		return db.Agent{}, nil, false
	}
	for _, m := range usable {
		if pinned != 0 && m.ID == pinned {
			return m, nil, true
		}
	}
	words := keywordSet(query)
	best, bestHits := usable[0], 0
	var bestMatched []string
	for _, m := range usable {
		var matched []string
		for w := range keywordSet(m.Name + " " + m.Description) {
			if len(w) >= 3 && !stopWords[w] && words[w] {
				matched = append(matched, w)
			}
		}
		if len(matched) > bestHits {
			best, bestHits, bestMatched = m, len(matched), matched
		}
	}
	reason := "No member's description matched; " + best.Name + " answers first."
	if bestHits > 0 {
		slices.Sort(bestMatched)
		reason = "The question mentions " + strings.Join(bestMatched, ", ") + ", which matches " + best.Name + "'s description."
	}
	return best, &Handoff{From: "router", To: best.Identifier, Reason: reason}, true
}
