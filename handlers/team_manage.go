package handlers

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/fault"
	"parley/views"
)

// showTeams lists the teams the viewer manages (all for an admin).
func (a *app) showTeams(c echo.Context) error {
	ctx := c.Request().Context()
	teams, err := a.store.ManagedTeams(ctx, manager(c))
	if err != nil {
		return err
	}
	public, err := a.store.PublicTeams(ctx, manager(c))
	if err != nil {
		return err
	}
	p := views.TeamsPage{Page: page(c, "Teams", "agents")}
	for _, t := range teams {
		p.Teams = append(p.Teams, views.TeamRow{ID: t.ID, Name: t.Name, Visibility: t.Visibility, Members: t.Members, Manage: true})
	}
	for _, t := range public {
		p.Teams = append(p.Teams, views.TeamRow{ID: t.ID, Name: t.Name, Visibility: t.Visibility, Members: t.Members})
	}
	return render(c, http.StatusOK, views.TeamsListPage(p))
}

// showNewTeam is the empty team form.
func (a *app) showNewTeam(c echo.Context) error {
	f, err := a.teamForm(c, db.Team{Visibility: "private"}, nil)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.TeamForm(f))
}

// showEditTeam is the form of a team the viewer manages.
func (a *app) showEditTeam(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	t, err := a.store.ManagedTeam(ctx, manager(c), id)
	if err != nil {
		return err
	}
	members, err := a.store.TeamMembers(ctx, id)
	if err != nil {
		return err
	}
	var ids []int64
	for _, m := range members {
		ids = append(ids, m.ID)
	}
	f, err := a.teamForm(c, t, ids)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.TeamForm(f))
}

func (a *app) teamForm(c echo.Context, t db.Team, selected []int64) (views.TeamFormPage, error) {
	title := "New team"
	if t.ID != 0 {
		title = t.Name
	}
	usable, err := a.store.UsableAgents(c.Request().Context(), viewer(c).ID)
	if err != nil {
		return views.TeamFormPage{}, err
	}
	f := views.TeamFormPage{Page: page(c, title, "agents"), ID: t.ID, Name: t.Name, Description: t.Description,
		Visibility: t.Visibility, Selected: selected, Errors: map[string]string{}}
	for _, ag := range usable {
		if teamMayHold(ag, viewer(c)) {
			f.Agents = append(f.Agents, agentRow(ag, viewer(c)))
		}
	}
	return f, nil
}

// readTeamForm reads and checks the team form: members are the agents given a position, in
// position order.
func readTeamForm(c echo.Context) (db.TeamInput, error) {
	in := db.TeamInput{Name: strings.TrimSpace(c.FormValue("name")), Description: strings.TrimSpace(c.FormValue("description")),
		Visibility: c.FormValue("visibility")}
	if !utf8.ValidString(in.Name + in.Description) {
		return in, fault.Field("", "The form holds text that is not valid UTF-8.")
	}
	if in.Name == "" || utf8.RuneCountInString(in.Name) > 80 {
		return in, fault.Field("name", "Name: 1–80 characters.")
	}
	if utf8.RuneCountInString(in.Description) > 500 {
		return in, fault.Field("description", "Description: at most 500 characters.")
	}
	if in.Visibility != "public" && in.Visibility != "private" {
		return in, fault.Field("visibility", "Visibility: public or private.")
	}
	form, err := c.FormParams()
	if err != nil {
		return in, err
	}
	type pick struct{ id, pos int64 }
	var picks []pick
	for k, v := range form {
		idText, ok := strings.CutPrefix(k, "position_")
		if !ok || len(v) == 0 || strings.TrimSpace(v[0]) == "" {
			continue
		}
		id, err1 := strconv.ParseInt(idText, 10, 64)
		pos, err2 := strconv.ParseInt(strings.TrimSpace(v[0]), 10, 64)
		if err1 != nil || err2 != nil || id <= 0 || pos < 1 || pos > 50 {
			return in, fault.Field("members", "Positions are whole numbers from 1 to 50.")
		}
		picks = append(picks, pick{id, pos})
	}
	if len(picks) == 0 || len(picks) > 50 {
		return in, fault.Field("members", "Give at least one agent a position.")
	}
	slices.SortFunc(picks, func(x, y pick) int {
		if x.pos != y.pos {
			return int(x.pos - y.pos)
		}
		return int(x.id - y.id)
	})
	for _, p := range picks {
		in.MemberIDs = append(in.MemberIDs, p.id)
	}
	return in, nil
}

// submitNewTeam creates a team owned by the viewer.
func (a *app) submitNewTeam(c echo.Context) error { return a.saveTeam(c, 0) }

// submitEditTeam saves a team the viewer manages.
func (a *app) submitEditTeam(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if _, err := a.store.ManagedTeam(c.Request().Context(), manager(c), id); err != nil {
		return err
	}
	return a.saveTeam(c, id)
}

func (a *app) saveTeam(c echo.Context, id int64) error {
	ctx := c.Request().Context()
	in, err := readTeamForm(c)
	var t db.Team
	if err == nil {
		if id == 0 {
			t, err = a.store.CreateTeam(ctx, manager(c), in)
		} else {
			t, err = a.store.UpdateTeam(ctx, manager(c), id, in)
		}
	}
	if f := fault.As(err); f != nil && f.Code == fault.Invalid {
		v, ferr := a.teamForm(c, db.Team{ID: id, Name: in.Name, Description: in.Description, Visibility: in.Visibility}, in.MemberIDs)
		if ferr != nil {
			return ferr
		}
		v.Errors[f.Field] = f.Message
		return render(c, http.StatusUnprocessableEntity, views.TeamForm(v))
	}
	if err != nil {
		return err
	}
	return redirect(c, "/teams/"+strconv.FormatInt(t.ID, 10)+"/chat")
}

// submitDeleteTeam deletes a team the viewer manages.
func (a *app) submitDeleteTeam(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := a.store.DeleteTeam(c.Request().Context(), manager(c), id); err != nil {
		return err
	}
	return redirect(c, "/teams")
}

// teamScope is how a conversation with the team starts.
func (a *app) teamScope(c echo.Context) (*newChat, error) {
	ctx := c.Request().Context()
	u := viewer(c)
	id, err := pathID(c, "id")
	if err != nil {
		return nil, err
	}
	t, err := a.store.TeamForChat(ctx, u.ID, u.IsAdmin, id)
	if err != nil {
		return nil, err
	}
	members, err := a.store.TeamMembers(ctx, id)
	if err != nil {
		return nil, err
	}
	members = a.usableMembers(c, members)
	base := "/teams/" + strconv.FormatInt(id, 10)
	return &newChat{Team: &t, Members: members, PostURL: base + "/messages", NewChatURL: base + "/chat?new=1"}, nil
}

// showTeamChat is /teams/{id}/chat: the user's latest conversation with the team (or a new one
// with ?new=1), with the agent sidebar.
func (a *app) showTeamChat(c echo.Context) error {
	ctx := c.Request().Context()
	scope, err := a.teamScope(c)
	if err != nil {
		return err
	}
	c.Set(newChatKey, scope)
	var exchangeID int64
	if c.QueryParam("new") == "" {
		e, err := a.store.LatestTeamExchange(ctx, viewer(c).ID, scope.Team.ID)
		switch {
		case err == nil:
			exchangeID = e.ID
		case !errors.Is(err, db.ErrNotFound):
			return err
		}
	}
	pane, err := a.chatPane(ctx, c, exchangeID)
	if err != nil {
		return err
	}
	return a.renderChatPageWith(c, pane, http.StatusOK)
}

// submitTeamMessage starts a conversation with the team.
func (a *app) submitTeamMessage(c echo.Context) error {
	scope, err := a.teamScope(c)
	if err != nil {
		return err
	}
	c.Set(newChatKey, scope)
	return a.submitMessage(c)
}
