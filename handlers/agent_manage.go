package handlers

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"parley/agents"
	"parley/db"
	"parley/fault"
	"parley/views"
)

// manager is the signed-in user as a manager of agents and teams.
func manager(c echo.Context) db.Manager {
	u := viewer(c)
	return db.Manager{UserID: u.ID, IsAdmin: u.IsAdmin}
}

// showAgents lists the agents the viewer manages (all for an admin) and the public agents of others.
func (a *app) showAgents(c echo.Context) error {
	p, err := a.agentsPage(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.AgentsListPage(p))
}

// agentsPage is the view model of /agents.
func (a *app) agentsPage(c echo.Context) (views.AgentsPage, error) {
	ctx := c.Request().Context()
	u := viewer(c)
	managed, err := a.store.ManagedAgents(ctx, manager(c))
	if err != nil {
		return views.AgentsPage{}, err
	}
	usable, err := a.store.UsableAgents(ctx, u.ID)
	if err != nil {
		return views.AgentsPage{}, err
	}
	p := views.AgentsPage{Page: page(c, "Agents", "agents"), IsAdmin: u.IsAdmin}
	seen := map[int64]bool{}
	for _, ag := range managed {
		seen[ag.ID] = true
		p.Managed = append(p.Managed, agentRow(ag, u))
	}
	for _, ag := range usable {
		if !seen[ag.ID] {
			p.Public = append(p.Public, agentRow(ag, u))
		}
	}
	if u.IsAdmin {
		p.WidgetAgent, err = a.store.FloatingWidgetAgent(ctx)
	}
	return p, err
}

func agentRow(ag db.Agent, u *db.User) views.AgentRow {
	r := views.AgentRow{ID: ag.ID, Identifier: ag.Identifier, Name: ag.Name, Description: ag.Description, Avatar: ag.Avatar,
		Visibility: ag.Visibility, HasPassword: ag.PasswordHash != nil, Disabled: ag.DisabledAt != nil, Builtin: ag.IsBuiltin}
	if u.IsAdmin && ag.OwnerID != nil && *ag.OwnerID != u.ID {
		r.Owner = "another user's"
	}
	return r
}

// showNewAgent is the empty agent form.
func (a *app) showNewAgent(c echo.Context) error {
	f := a.agentForm(c, db.Agent{AgentType: "general", Visibility: "private", Avatar: "🤖",
		Capabilities: []byte(`{"tools": true, "reasoning": true}`)})
	return render(c, http.StatusOK, views.AgentForm(f))
}

// showEditAgent is the form of an agent the viewer manages (others' are 404).
func (a *app) showEditAgent(c echo.Context) error {
	ag, err := a.managedAgent(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.AgentForm(a.agentForm(c, ag)))
}

// managedAgent reads agent :id when the viewer manages it; anyone else's or a missing one is 404.
func (a *app) managedAgent(c echo.Context) (db.Agent, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return db.Agent{}, err
	}
	return a.store.ManagedAgent(c.Request().Context(), manager(c), id)
}

// agentForm is the form's view model for a stored (or default) agent.
func (a *app) agentForm(c echo.Context, ag db.Agent) views.AgentFormPage {
	title := "New agent"
	if ag.ID != 0 {
		title = ag.Name
	}
	caps := agents.ReadCapabilities(ag.Capabilities)
	f := views.AgentFormPage{Page: page(c, title, "agents"), ID: ag.ID, Builtin: ag.IsBuiltin, Identifier: ag.Identifier, Name: ag.Name,
		Description: ag.Description, Avatar: ag.Avatar, AgentType: ag.AgentType, Model: ag.Model,
		SystemPrompt: ag.SystemPrompt, WelcomeMessage: ag.WelcomeMessage, Visibility: ag.Visibility,
		Accent: agents.ReadTheme(ag.Theme).Accent, Models: strings.Join(ag.Models, "\n"),
		EmbedOrigins: strings.Join(ag.EmbedOrigins, "\n"), Tools: caps.Tools, ShowReasoning: caps.Reasoning,
		HasPassword: ag.PasswordHash != nil, Disabled: ag.DisabledAt != nil,
		Provider: a.cfg.ProviderKind(), ProviderModel: a.generator.Provider.Model(),
		AgentTypes: agents.AgentTypes, Accents: agents.Accents, Errors: map[string]string{}}
	if ag.ID != 0 {
		base := strings.TrimRight(a.cfg.PublicURL, "/")
		f.PublicURL = base + "/chat/" + ag.Identifier
		f.EmbedSnippet = `<iframe src="` + base + `/embed/agent/` + ag.Identifier +
			`" title="` + strings.ReplaceAll(ag.Name, `"`, "&quot;") + `" width="400" height="600" style="border:0;border-radius:12px"></iframe>`
	}
	return f
}

// readAgentForm reads the posted form (multipart, with an optional avatar image).
func readAgentForm(c echo.Context) (agents.AgentForm, error) {
	f := agents.AgentForm{
		Identifier: c.FormValue("identifier"), Name: c.FormValue("name"), Description: c.FormValue("description"),
		Avatar: c.FormValue("avatar"), AgentType: c.FormValue("agent_type"), Model: c.FormValue("model"),
		SystemPrompt: c.FormValue("system_prompt"), WelcomeMessage: c.FormValue("welcome_message"),
		Visibility: c.FormValue("visibility"), Accent: c.FormValue("accent"), Password: c.FormValue("password"),
		RemovePassword: c.FormValue("remove_password") == "true", Tools: c.FormValue("tools") == "true",
		ShowReasoning: c.FormValue("show_reasoning") == "true", Models: c.FormValue("models"),
		EmbedOrigins: c.FormValue("embed_origins"),
	}
	if strings.TrimSpace(f.Avatar) == "" {
		f.Avatar = c.FormValue("avatar_current")
	}
	fh, err := c.FormFile("avatar_image")
	if errors.Is(err, http.ErrMissingFile) || errors.Is(err, http.ErrNotMultipart) {
		return f, nil
	}
	if err != nil {
		return f, fault.Field("avatar", "The avatar image could not be read; upload it again.")
	}
	file, err := fh.Open()
	if err != nil {
		return f, err
	}
	defer file.Close()
	f.AvatarImage, err = io.ReadAll(io.LimitReader(file, agents.MaxAvatarImageBytes+1))
	return f, err
}

// submitNewAgent creates an agent owned by the viewer. Bad input shows the form again with the
// message beside its field (422), keeping what was typed.
func (a *app) submitNewAgent(c echo.Context) error {
	return a.saveAgent(c, db.Agent{})
}

// submitEditAgent saves an agent the viewer manages.
func (a *app) submitEditAgent(c echo.Context) error {
	stored, err := a.managedAgent(c)
	if err != nil {
		return err // ownership first: someone else's agent is 404 whatever the form says
	}
	return a.saveAgent(c, stored)
}

// errBuiltinAgent refuses to disable or delete an agent Parley itself relies on.
var errBuiltinAgent = &fault.Error{Code: fault.Conflict,
	Message: "Built-in agents cannot be disabled or deleted (general chat and the page editor use them); edit them instead."}

// saveAgent creates (stored.ID 0) or updates an agent from the posted form. A built-in agent keeps
// its identifier, type, public visibility and no password: general chat and the page editor find
// it by them.
func (a *app) saveAgent(c echo.Context, stored db.Agent) error {
	ctx := c.Request().Context()
	id := stored.ID
	form, err := readAgentForm(c)
	if stored.IsBuiltin {
		form.Identifier, form.AgentType, form.Visibility, form.Password, form.RemovePassword = stored.Identifier, stored.AgentType, "public", "", false
	}
	var in db.AgentInput
	if err == nil {
		in, err = agents.CheckAgent(form, a.cfg.ProviderKind(), a.accounts.Cost)
	}
	var ag db.Agent
	if err == nil {
		if id == 0 {
			ag, err = a.store.CreateAgent(ctx, viewer(c).ID, in)
		} else {
			ag, err = a.store.UpdateAgent(ctx, manager(c), id, in)
		}
	}
	if f := fault.As(err); f != nil && f.Code == fault.Invalid {
		return a.renderAgentFormError(c, id, form, f)
	}
	if err != nil {
		return err
	}
	return redirect(c, "/agents/"+strconv.FormatInt(ag.ID, 10)+"/edit")
}

// renderAgentFormError shows the form again with what was typed (never the password) and the error.
func (a *app) renderAgentFormError(c echo.Context, id int64, form agents.AgentForm, f *fault.Error) error {
	stored := db.Agent{ID: id}
	if id != 0 {
		var err error
		if stored, err = a.store.ManagedAgent(c.Request().Context(), manager(c), id); err != nil {
			return err
		}
	}
	v := a.agentForm(c, stored)
	v.Identifier, v.Name, v.Description, v.AgentType, v.Model = form.Identifier, form.Name, form.Description, form.AgentType, form.Model
	v.SystemPrompt, v.WelcomeMessage, v.Visibility, v.Accent = form.SystemPrompt, form.WelcomeMessage, form.Visibility, form.Accent
	v.Models, v.EmbedOrigins, v.Tools, v.ShowReasoning = form.Models, form.EmbedOrigins, form.Tools, form.ShowReasoning
	if f.Field != "avatar" {
		v.Avatar = form.Avatar
	}
	v.Errors[f.Field] = f.Message
	return render(c, http.StatusUnprocessableEntity, views.AgentForm(v))
}

// submitDisableAgent disables or enables an agent the viewer manages.
func (a *app) submitDisableAgent(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := a.refuseBuiltin(c, id); err != nil { // ownership before the form
		return err
	}
	disabled, err := strconv.ParseBool(c.FormValue("disabled"))
	if err != nil {
		return fault.Field("disabled", "disabled must be true or false.")
	}
	if err := a.store.SetAgentDisabled(c.Request().Context(), manager(c), id, disabled); err != nil {
		return err
	}
	return redirect(c, "/agents/"+strconv.FormatInt(id, 10)+"/edit")
}

// submitDeleteAgent deletes an agent the viewer manages.
func (a *app) submitDeleteAgent(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := a.refuseBuiltin(c, id); err != nil {
		return err
	}
	if err := a.store.DeleteAgent(c.Request().Context(), manager(c), id); err != nil {
		return err
	}
	a.forgetWidget() // it may have been the floating chat button's agent
	return redirect(c, "/agents")
}

// refuseBuiltin is ErrNotFound for an agent the viewer may not manage and errBuiltinAgent for a
// built-in one.
func (a *app) refuseBuiltin(c echo.Context, id int64) error {
	ag, err := a.store.ManagedAgent(c.Request().Context(), manager(c), id)
	if err == nil && ag.IsBuiltin {
		return errBuiltinAgent
	}
	return err
}
