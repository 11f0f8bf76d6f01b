package handlers

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"parley/agents"
	"parley/chat"
	"parley/db"
	"parley/fault"
	"parley/views"
)

// newChatKey holds the *newChat of a page or post that starts a conversation with a given agent
// or team (the agent, team and widget routes set it; general chat has none).
const newChatKey = "new_chat"

// newChat is what a conversation started on this request talks to, and where its pages are.
type newChat struct {
	Agent db.Agent
	// Team and its Members, for a team chat (Agent is then unused).
	Team    *db.Team
	Members []db.Agent
	// PostURL is where its first message posts; NewChatURL opens a fresh conversation with it.
	PostURL, NewChatURL string
	// Home is the page guests and the widget return to after a post without JavaScript ("" for
	// signed-in users, who go to /sessions/{id}/chat).
	Home  string
	Embed bool
}

func scopeOf(c echo.Context) *newChat {
	s, _ := c.Get(newChatKey).(*newChat)
	return s
}

// errBadModel refuses a model the agent does not offer.
var errBadModel = fault.Field("model", "That model is not offered for this agent; pick one from the list.")

// turnPlan is who answers a turn and how.
type turnPlan struct {
	Agent  db.Agent
	TeamID int64
	// Model is the conversation's model ("" = the agent's or the provider's).
	Model string
	// Meta is the answer placeholder's metadata (a team router's handoff_info).
	Meta json.RawMessage
	// Team are the usable members when the router (not a pin) chose, for a model to re-check.
	Team []db.Agent
	// Specialists are those a router Agent may hand the turn to, read with it (nil: not read).
	Specialists []db.Agent
	// Home: see newChat.Home. Embed marks the widget's composer.
	Home  string
	Embed bool
}

// turnAgent decides who answers a turn of exchange e (nil: a new conversation, see newChat): the
// exchange's agent, checked again for access (private, password, disabled); or for a team the
// member the person pinned (select_agent) or the router picked. The model is the one the person
// picked (form "model") when the agent allows it.
func (a *app) turnAgent(c echo.Context, e *db.Exchange, query string) (turnPlan, error) {
	ctx := c.Request().Context()
	scope := scopeOf(c)
	var plan turnPlan
	var members []db.Agent
	switch {
	case e == nil && scope != nil && scope.Team != nil:
		plan.TeamID, members = scope.Team.ID, scope.Members
	case e == nil && scope != nil:
		plan.Agent = scope.Agent
	case e != nil && e.TeamID != nil:
		u := viewer(c)
		if u == nil {
			return plan, db.ErrNotFound
		}
		if _, err := a.store.TeamForChat(ctx, u.ID, u.IsAdmin, *e.TeamID); err != nil {
			return plan, err
		}
		var err error
		plan.TeamID = *e.TeamID
		if members, err = a.store.TeamMembers(ctx, plan.TeamID); err != nil {
			return plan, err
		}
		members = a.usableMembers(c, members)
	default:
		ag, specialists, err := a.exchangeAgent(ctx, e)
		if err != nil {
			return plan, err
		}
		plan.Agent, plan.Specialists = ag, specialists
	}
	if plan.TeamID != 0 {
		pinned, err := pinnedAgent(c, members)
		if err != nil {
			return plan, err
		}
		chosen, handoff, ok := chat.RouteTeam(members, query, pinned)
		if !ok {
			return plan, errAgentUnavailable
		}
		plan.Agent = chosen
		if handoff != nil {
			plan.Meta, _ = json.Marshal(map[string]any{"handoff_info": handoff})
			plan.Team = members
		}
	} else {
		if plan.Agent.DisabledAt != nil || plan.Agent.DeletedAt != nil {
			return plan, errAgentUnavailable
		}
		if !plan.Agent.IsBuiltin {
			if err := a.checkAgentAccess(c, plan.Agent); err != nil {
				return plan, err
			}
		}
	}
	plan.Model = plan.Agent.Model
	if e != nil && slices.Contains(a.agentModels(plan.Agent), e.Model) {
		plan.Model = e.Model
	}
	if m := c.FormValue("model"); m != "" {
		if !slices.Contains(a.agentModels(plan.Agent), m) {
			return plan, errBadModel
		}
		if viewer(c) != nil { // guests are not offered a choice
			plan.Model = m
		}
	}
	plan.Embed = c.FormValue("embed") == "1" || scope != nil && scope.Embed
	switch {
	case scope != nil:
		plan.Home = scope.Home
	case viewer(c) == nil && plan.Embed:
		plan.Home = "/embed/agent/" + plan.Agent.Identifier
	case viewer(c) == nil:
		plan.Home = "/chat/" + plan.Agent.Identifier
	}
	return plan, nil
}

// retryAgent is who answers a retried message: for a team, the member that answered it (if still
// usable); otherwise the exchange's agent.
func (a *app) retryAgent(c echo.Context, e *db.Exchange, messageID int64) (db.Agent, error) {
	ctx := c.Request().Context()
	if e.TeamID == nil {
		ag, _, err := a.exchangeAgent(ctx, e)
		if err == nil && !ag.IsBuiltin {
			err = a.checkAgentAccess(c, ag)
		}
		return ag, err
	}
	m, err := a.store.MessageByID(ctx, e.ID, messageID)
	if err != nil {
		return db.Agent{}, err
	}
	if m.AgentID == nil {
		return db.Agent{}, errAgentUnavailable
	}
	byID, err := a.store.AgentsByID(ctx, []int64{*m.AgentID})
	if err != nil {
		return db.Agent{}, err
	}
	ag, ok := byID[*m.AgentID]
	if !ok || ag.DisabledAt != nil || ag.DeletedAt != nil {
		return db.Agent{}, errAgentUnavailable
	}
	return ag, a.checkAgentAccess(c, ag)
}

// agentModels are the models people may pick for the agent's conversations: its model (or the
// provider's) first, then the other allowed ones.
func (a *app) agentModels(ag db.Agent) []string {
	first := ag.Model
	if first == "" {
		first = a.generator.Provider.Model()
	}
	return append([]string{first}, ag.Models...)
}

// agentView is how an agent shows in a chat pane, theme included.
func agentView(ag db.Agent) views.AgentView {
	return views.AgentView{Name: ag.Name, Avatar: ag.Avatar, Welcome: ag.WelcomeMessage,
		Accent: agents.ReadTheme(ag.Theme).Accent, ShowReasoning: agents.ReadCapabilities(ag.Capabilities).Reasoning}
}

// dressPane completes a chat pane for its agent (or team) and its viewer: theme, the banner of a
// disabled or deleted agent, model choice, a guest's sign-up invitation, the team sidebar, and the
// URLs of a conversation started on an agent, team or widget page. msgs are the exchange's messages.
func (a *app) dressPane(c echo.Context, pane *views.ChatPane, agent db.Agent, e *db.Exchange, msgs []db.Message) error {
	ctx := c.Request().Context()
	scope := scopeOf(c)
	if e == nil && scope != nil && scope.Team == nil {
		agent = scope.Agent
	}
	pane.Agent = agentView(agent)
	pane.Guest = viewer(c) == nil
	switch {
	case (agent.DisabledAt != nil || agent.DeletedAt != nil) && e != nil:
		pane.Unavailable = "This agent has been disabled or deleted by its owner. You can read this conversation but not continue it."
	case agent.DisabledAt != nil || agent.DeletedAt != nil:
		pane.Unavailable = "This agent has been disabled by its owner; it is not taking conversations now."
	}
	if scope != nil {
		pane.NewURL, pane.NewChatURL, pane.Embed = scope.PostURL, scope.NewChatURL, scope.Embed
	}
	if pane.Guest && agent.Identifier != "" {
		if pane.NewChatURL == "" {
			pane.NewChatURL = "/chat/" + agent.Identifier + "?new=1"
		}
		if !pane.Embed {
			next := "/chat/" + agent.Identifier
			if e != nil {
				next = sessionURL(e.ID)
			}
			pane.SignUpURL = "/signup?next=" + url.QueryEscape(next)
		}
	}
	// Offline every model answers alike ("offline"), so there is no choice to offer.
	if !pane.Guest && a.cfg.ProviderKind() != "offline" {
		if models := a.agentModels(agent); len(models) > 1 {
			pane.Models, pane.Model = models, models[0]
			if e != nil && slices.Contains(models, e.Model) {
				pane.Model = e.Model
			}
		}
	}
	var teamID int64
	switch {
	case e != nil && e.TeamID != nil:
		teamID = *e.TeamID
	case e == nil && scope != nil && scope.Team != nil:
		teamID = scope.Team.ID
	}
	if teamID == 0 {
		return nil
	}
	u := viewer(c)
	if u == nil {
		return db.ErrNotFound
	}
	team, err := a.store.TeamForChat(ctx, u.ID, u.IsAdmin, teamID)
	if err != nil {
		return err
	}
	members, err := a.store.TeamMembers(ctx, teamID)
	if err != nil {
		return err
	}
	tv := &views.TeamView{ID: team.ID, Name: team.Name, Pinned: pinnedMember(msgs)}
	pinnedUsable := false
	for _, m := range a.usableMembers(c, members) {
		tv.Members = append(tv.Members, views.TeamMemberView{ID: m.ID, Name: m.Name, Avatar: m.Avatar, Description: m.Description})
		pinnedUsable = pinnedUsable || m.ID == tv.Pinned
	}
	if !pinnedUsable {
		tv.Pinned = 0 // the pinned member is out of reach now: Auto
	}
	pane.Team = tv
	pane.Agent = views.AgentView{Name: team.Name, Avatar: "👥", Welcome: "Ask the team: the router picks the member whose description fits, or pin one in the sidebar.", ShowReasoning: true}
	pane.Models, pane.Unavailable = nil, ""
	if len(tv.Members) == 0 {
		pane.Unavailable = "This team has no usable members."
	}
	pane.NewChatURL = "/teams/" + strconv.FormatInt(team.ID, 10) + "/chat?new=1"
	pane.NoHistory = true
	return nil
}

// pinnedMember is the team member the person pinned for the latest turn (an answer without a
// router hand-off), or 0 when the router chose (Auto) or nothing was answered yet.
func pinnedMember(msgs []db.Message) int64 {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role != db.RoleAssistant || m.AgentID == nil {
			continue
		}
		var meta struct {
			Handoff json.RawMessage `json:"handoff_info"`
		}
		if json.Unmarshal(m.Metadata, &meta) == nil && len(meta.Handoff) == 0 {
			return *m.AgentID
		}
		return 0
	}
	return 0
}
