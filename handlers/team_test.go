package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"parley/handlers/handlerstest"
)

// createTeam posts the team form with the agents in order and returns the team's id.
func createTeam(t *testing.T, c *handlerstest.Client, name, visibility string, members ...int64) int64 {
	t.Helper()
	form := url.Values{"name": {name}, "visibility": {visibility}}
	for i, id := range members {
		form.Set(fmt.Sprintf("position_%d", id), fmt.Sprint(i+1))
	}
	res := c.PostForm("/teams", form)
	var id int64
	if _, err := fmt.Sscanf(res.Header.Get("Location"), "/teams/%d/chat", &id); res.Status != http.StatusSeeOther || err != nil {
		t.Fatalf("create team: status %d\n%s", res.Status, res.Body)
	}
	return id
}

// With the offline router a query matching one member's description is answered by that member;
// pinning another member routes to it; every answer names its agent.
func TestTeamRouterPicksByDescriptionAndPinningWins(t *testing.T) {
	app, c := signedIn(t)
	chef := createAgent(t, c, agentForm("chef", "name", "Chef", "description", "Cooking, recipes, baking bread and the kitchen."))
	gardener := createAgent(t, c, agentForm("gardener", "name", "Gardener", "description", "Plants, soil, pruning roses and the vegetable garden."))
	team := createTeam(t, c, "House", "private", chef, gardener)

	page := c.Get(fmt.Sprintf("/teams/%d/chat", team))
	d := doc(t, page.Body)
	if d.Find(`input[name=select_agent][form=composer]`).Length() != 3 {
		t.Fatal("the team sidebar does not offer Auto and both members")
	}
	res := htmxPost(c, fmt.Sprintf("/teams/%d/messages", team), url.Values{"query": {"When should I prune my roses in the garden?"}, "idempotency_key": {"t1"}})
	ex := exchangeFromPush(t, res)
	m := waitAnswer(t, app, ex)
	if m.AgentID == nil || *m.AgentID != gardener {
		t.Fatalf("the garden question was answered by agent %v, want the gardener %d", m.AgentID, gardener)
	}
	var meta struct {
		Handoff struct{ From, To string } `json:"handoff_info"`
	}
	_ = json.Unmarshal(m.Metadata, &meta)
	if meta.Handoff.From != "router" || meta.Handoff.To != "gardener" {
		t.Fatalf("hand-off %+v not recorded", meta.Handoff)
	}
	htmxPost(c, fmt.Sprintf("/sessions/%d/messages", ex), url.Values{"query": {"A bread recipe for my kitchen?"}, "idempotency_key": {"t2"}})
	if m := waitAnswer(t, app, ex); m.AgentID == nil || *m.AgentID != chef {
		t.Fatalf("the kitchen question was answered by %v, want the chef %d", m.AgentID, chef)
	}
	htmxPost(c, fmt.Sprintf("/sessions/%d/messages", ex), url.Values{"query": {"A bread recipe for my kitchen?"},
		"idempotency_key": {"t3"}, "select_agent": {fmt.Sprint(gardener)}})
	if m := waitAnswer(t, app, ex); m.AgentID == nil || *m.AgentID != gardener {
		t.Fatalf("pinned to the gardener, answered by %v", m.AgentID)
	}
	show := doc(t, c.Get(fmt.Sprintf("/sessions/%d/chat", ex)).Body)
	if names := show.Find(`[data-testid=answer-agent]`).Map(func(_ int, s *goquery.Selection) string { return s.Text() }); len(names) != 3 ||
		names[0] != "Gardener" || names[1] != "Chef" || names[2] != "Gardener" {
		t.Fatalf("answer labels %v", names)
	}
	if reason := show.Find(`[data-testid=via-router]`).First().AttrOr("title", ""); !strings.Contains(reason, "garden") {
		t.Fatalf("the hand-off badge explains %q, want the matched words", reason)
	}
	if show.Find(fmt.Sprintf(`input[name=select_agent][value="%d"][checked]`, gardener)).Length() != 1 {
		t.Fatal("after a pinned turn the sidebar no longer shows the pin")
	}
	if show.Find(`[data-testid=team-chat]`).Length() != 1 {
		t.Fatal("a team conversation opened from history lost its agent sidebar")
	}
}

func TestTeamFormRefusesForeignOrMissingMembers(t *testing.T) {
	app := handlerstest.Start(t)
	admin := app.Client(t)
	admin.SignUp("admin@example.com", "correct horse")
	owner := app.Client(t)
	owner.SignUp("owner@example.com", "correct horse")
	private := createAgent(t, admin, agentForm("private-one", "visibility", "private"))
	for _, form := range []url.Values{
		{"name": {"T"}, "visibility": {"private"}},
		{"name": {"T"}, "visibility": {"private"}, fmt.Sprintf("position_%d", private): {"1"}},
		{"name": {"T"}, "visibility": {"private"}, "position_999999": {"1"}},
		{"name": {""}, "visibility": {"private"}, "position_1": {"1"}},
	} {
		if res := owner.PostForm("/teams", form); res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("team form %v: %d, want 422", form, res.Status)
		}
	}
	if count(t, app, "teams") != 0 {
		t.Fatal("a refused team was stored")
	}
}

// With a model, the router asks it (a routing call with structured output: the select_agent tool,
// or the same JSON as text) which member answers.
func TestTeamRouterAsksTheModelWhenOneIsConnected(t *testing.T) {
	for _, viaTool := range []bool{true, false} {
		t.Run(fmt.Sprintf("tool=%v", viaTool), func(t *testing.T) { testTeamModelRouting(t, viaTool) })
	}
}

func testTeamModelRouting(t *testing.T, viaTool bool) {
	up := handlerstest.FakeOpenAI(t, func(call int64) handlerstest.Reply {
		switch {
		case call == 1 && viaTool:
			return handlerstest.Reply{Finish: "tool_calls", ToolCalls: []handlerstest.ToolCallDelta{
				{ID: "call_1", Name: "select_agent", Args: `{"agent": "chef", "reason": "Soup is the chef's business."}`}}}
		case call == 1:
			return handlerstest.Reply{Deltas: []string{`{"agent": "chef", "reason": "Soup is `, `the chef's business."}`}}
		}
		return handlerstest.Reply{Deltas: []string{"Here is a soup."}}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	chef := createAgent(t, c, agentForm("chef", "name", "Chef", "description", "Cooking and recipes."))
	gardener := createAgent(t, c, agentForm("gardener", "name", "Gardener", "description", "Plants, soil and the garden."))
	team := createTeam(t, c, "House", "private", gardener, chef)
	// The description router would pick the gardener (it names the garden); the model picks the chef.
	res := htmxPost(c, fmt.Sprintf("/teams/%d/messages", team), url.Values{"query": {"A soup with the leeks from my garden?"}, "idempotency_key": {"m1"}})
	m := waitAnswer(t, app, exchangeFromPush(t, res))
	if m.AgentID == nil || *m.AgentID != chef || m.Content != "Here is a soup." {
		t.Fatalf("answered by %v with %q, want the chef", m.AgentID, m.Content)
	}
	if !strings.Contains(string(m.Metadata), "the chef's business") {
		t.Fatalf("the model's reason is not recorded: %s", m.Metadata)
	}
	tools, _ := up.LastRequest()["tools"].([]any)
	if up.Calls.Load() != 2 || len(tools) != 1 {
		t.Fatalf("%d upstream calls; want a routing call, then the answer (with the member's search tool)", up.Calls.Load())
	}
}

// Another user's public team is listed and usable (not editable); a private one is neither.
func TestPublicTeamsAreListedForOthers(t *testing.T) {
	app := handlerstest.Start(t)
	app.Client(t).SignUp("admin@example.com", "correct horse")
	owner := app.Client(t)
	owner.SignUp("owner@example.com", "correct horse")
	other := app.Client(t)
	other.SignUp("other@example.com", "correct horse")
	owl := createAgent(t, owner, agentForm("owl"))
	open := createTeam(t, owner, "Open House", "public", owl)
	createTeam(t, owner, "Closed House", "private", owl)
	d := doc(t, other.Get("/teams").Body)
	if d.Find(fmt.Sprintf(`[data-team="%d"]`, open)).Length() != 1 || strings.Contains(d.Text(), "Closed House") {
		t.Fatal("the list must show the public team and not the private one")
	}
	if d.Find(fmt.Sprintf(`a[href="/teams/%d/edit"]`, open)).Length() != 0 {
		t.Fatal("another user's team offers Edit")
	}
	if res := other.Get(fmt.Sprintf("/teams/%d/chat", open)); res.Status != http.StatusOK {
		t.Fatalf("a public team's chat: %d", res.Status)
	}
}
