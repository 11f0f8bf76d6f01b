package handlers

import (
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"golang.org/x/crypto/bcrypt"

	"parley/config"
	"parley/db"
	"parley/views"
)

var identifierParam = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// renderAgentPage renders a pane on its own page: the widget, a team chat (with its agent
// sidebar), or an agent's chat without the history sidebar (guests).
func (a *app) renderAgentPage(c echo.Context, pane views.ChatPane, status int) error {
	p := page(c, pane.Agent.Name, "agents")
	switch {
	case pane.Embed:
		p.Bare = true
		return render(c, status, views.EmbedPage(p, pane))
	case pane.Team != nil:
		return render(c, status, views.TeamChatPage(p, pane))
	}
	return render(c, status, views.AgentChatPage(p, pane))
}

// agentByIdentifier is the agent of the :identifier path parameter (disabled or not; deleted or
// malformed is ErrNotFound).
func (a *app) agentByIdentifier(c echo.Context) (db.Agent, error) {
	id := c.Param("identifier")
	if !identifierParam.MatchString(id) {
		return db.Agent{}, db.ErrNotFound
	}
	return a.store.AgentForChat(c.Request().Context(), id)
}

// agentByPathID is the agent of the :id path parameter, as agentByIdentifier.
func (a *app) agentByPathID(c echo.Context) (db.Agent, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return db.Agent{}, err
	}
	byID, err := a.store.AgentsByID(c.Request().Context(), []int64{id})
	if err != nil {
		return db.Agent{}, err
	}
	ag, ok := byID[id]
	if !ok || ag.DeletedAt != nil {
		return db.Agent{}, db.ErrNotFound
	}
	return ag, nil
}

// publicScope is how a conversation with the agent starts on its public link.
func publicScope(ag db.Agent, signedIn bool) *newChat {
	base := "/chat/" + ag.Identifier
	s := &newChat{Agent: ag, PostURL: base + "/messages", NewChatURL: base + "?new=1"}
	if !signedIn {
		s.Home = base
	}
	return s
}

// embedScope is how a conversation with the agent starts in its widget.
func embedScope(ag db.Agent) *newChat {
	base := "/embed/agent/" + ag.Identifier
	return &newChat{Agent: ag, PostURL: base + "/messages", NewChatURL: base + "?new=1", Home: base, Embed: true}
}

// memberScope is how a signed-in user's conversation with the agent starts at /agents/{id}/chat.
func memberScope(ag db.Agent) *newChat {
	base := "/agents/" + strconv.FormatInt(ag.ID, 10)
	return &newChat{Agent: ag, PostURL: base + "/messages", NewChatURL: base + "/chat?new=1"}
}

// showPublicAgentChat is /chat/{identifier} and /chat/agent/{identifier}: anyone may chat with a
// public agent (a private one is 404 but to its owner and admins). It resumes the visitor's latest
// conversation with the agent unless ?new=1.
func (a *app) showPublicAgentChat(c echo.Context) error {
	ag, err := a.agentByIdentifier(c)
	if err != nil {
		return err
	}
	return a.openAgentChat(c, ag, publicScope(ag, viewer(c) != nil), "/chat/"+ag.Identifier+"/unlock")
}

// showAgentChat is /agents/{id}/chat: a signed-in user's chat with their own or a public agent.
func (a *app) showAgentChat(c echo.Context) error {
	ag, err := a.agentByPathID(c)
	if err != nil {
		return err
	}
	return a.openAgentChat(c, ag, memberScope(ag), "/chat/"+ag.Identifier+"/unlock")
}

// showEmbed is the widget, /embed/agent/{identifier}: the agent's chat with minimal chrome that the
// agent's allow-listed origins may frame.
func (a *app) showEmbed(c echo.Context) error {
	ag, err := a.agentByIdentifier(c)
	if err != nil {
		return err
	}
	allowFraming(c, ag)
	return a.openAgentChat(c, ag, embedScope(ag), "/embed/agent/"+ag.Identifier+"/unlock")
}

// openAgentChat renders the agent's chat page for this visitor, or its password prompt.
func (a *app) openAgentChat(c echo.Context, ag db.Agent, scope *newChat, unlockURL string) error {
	ctx := c.Request().Context()
	err := a.checkAgentAccess(c, ag)
	if errors.Is(err, errAgentLocked) {
		return a.renderUnlock(c, ag, scope.Embed, unlockURL, "", http.StatusOK)
	}
	if err != nil {
		return err
	}
	c.Set(newChatKey, scope)
	var exchangeID int64
	if owner := chatOwner(c); owner != (db.Owner{}) && c.QueryParam("new") == "" {
		e, err := a.store.LatestAgentExchange(ctx, owner, ag.ID)
		switch {
		case err == nil:
			exchangeID = e.ID
			c.Set(newChatKey, &newChat{Agent: ag, NewChatURL: scope.NewChatURL, Home: scope.Home, Embed: scope.Embed})
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

// renderUnlock shows the agent's password prompt (inside the widget's chrome when embed).
func (a *app) renderUnlock(c echo.Context, ag db.Agent, embed bool, action, msg string, status int) error {
	p := page(c, ag.Name, "agents")
	p.Bare = embed
	return render(c, status, views.UnlockPage(p, views.UnlockForm{Agent: agentView(ag), Action: action, Error: msg}))
}

// submitPublicAgentMessage starts a conversation with the agent of /chat/{identifier} (guest or user).
func (a *app) submitPublicAgentMessage(c echo.Context) error {
	ag, err := a.agentByIdentifier(c)
	if err != nil {
		return err
	}
	return a.startAgentChat(c, ag, publicScope(ag, viewer(c) != nil))
}

// submitEmbedMessage starts a conversation in the widget.
func (a *app) submitEmbedMessage(c echo.Context) error {
	ag, err := a.agentByIdentifier(c)
	if err != nil {
		return err
	}
	return a.startAgentChat(c, ag, embedScope(ag))
}

// submitAgentMessage starts a signed-in user's conversation at /agents/{id}/chat.
func (a *app) submitAgentMessage(c echo.Context) error {
	ag, err := a.agentByPathID(c)
	if err != nil {
		return err
	}
	return a.startAgentChat(c, ag, memberScope(ag))
}

func (a *app) startAgentChat(c echo.Context, ag db.Agent, scope *newChat) error {
	if err := a.checkAgentAccess(c, ag); err != nil {
		return err
	}
	c.Set(newChatKey, scope)
	return a.submitMessage(c)
}

// submitUnlock checks an agent's password (rate limited per agent and client IP). A right one is
// remembered in this browser and opens the chat; a wrong one asks again with the reason.
func (a *app) submitUnlock(c echo.Context) error {
	ag, err := a.agentByIdentifier(c)
	if err != nil {
		return err
	}
	embed := strings.HasPrefix(c.Path(), "/embed/")
	if embed {
		allowFraming(c, ag)
	}
	if ag.Visibility != "public" && !mayManage(viewer(c), ag) {
		return db.ErrNotFound
	}
	back := "/chat/" + ag.Identifier
	if embed {
		back = "/embed/agent/" + ag.Identifier
	}
	if ag.PasswordHash == nil {
		return redirect(c, back)
	}
	action := back + "/unlock"
	if embed {
		action = "/embed/agent/" + ag.Identifier + "/unlock"
	}
	if !a.limits.allowAgentPassword(c.Request().Context(), ag.ID, c.RealIP()) {
		c.Response().Header().Set("Retry-After", "60")
		return a.renderUnlock(c, ag, embed, action, errTooManySignIns.Message, http.StatusTooManyRequests)
	}
	pw := c.FormValue("password")
	if len(pw) > 72 || bcrypt.CompareHashAndPassword([]byte(*ag.PasswordHash), []byte(pw)) != nil {
		return a.renderUnlock(c, ag, embed, action, "That password is not right. Try again.", http.StatusUnauthorized)
	}
	if err := a.rememberUnlock(c, ag); err != nil {
		return err
	}
	return redirect(c, back)
}

// allowFraming lets the agent's allow-listed origins (and Parley itself, for the floating widget)
// frame this response; every other route keeps frame-ancestors 'none'.
func allowFraming(c echo.Context, ag db.Agent) {
	h := c.Response().Header()
	ancestors := "'self'"
	for _, o := range ag.EmbedOrigins {
		ancestors += " " + o
	}
	h.Del("X-Frame-Options")
	h.Set("Content-Security-Policy", strings.Replace(h.Get("Content-Security-Policy"), "frame-ancestors 'none'", "frame-ancestors "+ancestors, 1))
}

// csrfSameSite is the CSRF cookie's SameSite: None over TLS, so the widget can post from inside a
// third-party iframe (the token is a double-submit secret that other sites cannot read, so
// SameSite adds nothing to its protection); Lax over plain HTTP, where None is refused.
func csrfSameSite(cfg config.Config) http.SameSite {
	if cfg.Secure() {
		return http.SameSiteNoneMode
	}
	return http.SameSiteLaxMode
}

// partitionCSRF marks the CSRF cookie of every response as Partitioned (CHIPS) over TLS, so
// browsers that block third-party cookies keep it inside the embedding site's iframe, whichever
// route answers there (the widget's page, its posts, unlock, the event stream). On Parley's own
// pages a partitioned cookie is keyed to Parley itself and works as before; having one kind of
// CSRF cookie everywhere avoids two same-named cookies. echo's CSRF middleware cannot set the
// attribute itself.
func (a *app) partitionCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	if !a.cfg.Secure() {
		return next
	}
	return func(c echo.Context) error {
		w := c.Response()
		w.Before(func() {
			cookies := w.Header().Values("Set-Cookie")
			for i, ck := range cookies {
				if strings.HasPrefix(ck, "parley_csrf=") && !strings.Contains(ck, "Partitioned") {
					cookies[i] = ck + "; Partitioned"
				}
			}
		})
		return next(c)
	}
}
