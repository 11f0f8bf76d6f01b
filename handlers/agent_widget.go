package handlers

import (
	"errors"
	"net/http"
	"parley/agents"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/views"
)

const widgetKey = "widget"

// widgetCacheTTL is how long an instance trusts its copy of the floating widget setting (several
// instances pick up an admin's change within this time).
const widgetCacheTTL = 30 * time.Second

// widgetCache holds the floating chat button resolved to its agent, read at most every widgetCacheTTL.
type widgetCache struct {
	mu     sync.Mutex
	read   time.Time
	widget *views.Widget
}

// loadWidget puts the floating chat button (when an admin enabled it) in the context of signed-in
// pages; page() shows it. Pages that are a chat already do not get it (see chatRoute).
func (a *app) loadWidget(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if viewer(c) != nil && c.Request().Method == http.MethodGet && !strings.HasPrefix(c.Path(), "/static/") && !chatRoute(c.Path()) {
			w, err := a.floatingWidget(c)
			if err != nil {
				return err
			}
			if w != nil {
				c.Set(widgetKey, w)
			}
		}
		return next(c)
	}
}

// chatRoute reports whether the route (echo's path pattern) is a chat page: general chat and its
// conversations, agent and team chats, the widget, and a page's editor and chats. Like chat
// launchers elsewhere, the floating button stays off them (on a phone it would cover Send).
func chatRoute(route string) bool {
	return strings.HasPrefix(route, "/chat") || strings.HasPrefix(route, "/sessions/") || strings.HasPrefix(route, "/embed/") ||
		strings.HasSuffix(route, "/chat") || route == "/pages/:id/edit" || strings.HasPrefix(route, "/pages/:id/chats/")
}

func (a *app) floatingWidget(c echo.Context) (*views.Widget, error) {
	a.widget.mu.Lock()
	defer a.widget.mu.Unlock()
	if time.Since(a.widget.read) < widgetCacheTTL {
		return a.widget.widget, nil
	}
	ctx := c.Request().Context()
	id, err := a.store.FloatingWidgetAgent(ctx)
	if err != nil {
		return nil, err
	}
	var w *views.Widget
	if id != "" {
		ag, err := a.store.AgentByIdentifier(ctx, id)
		switch {
		case err == nil && ag.Visibility == "public" && ag.PasswordHash == nil:
			w = &views.Widget{Name: ag.Name, Avatar: ag.Avatar, EmbedURL: "/embed/agent/" + ag.Identifier, Accent: agents.ReadTheme(ag.Theme).Accent}
		case err != nil && !errors.Is(err, db.ErrNotFound):
			return nil, err
		}
	}
	a.widget.read, a.widget.widget = time.Now(), w
	return w, nil
}

// submitWidget (admins) sets the floating chat button's agent: a public agent without a password,
// or empty to turn it off.
func (a *app) submitWidget(c echo.Context) error {
	ctx := c.Request().Context()
	if !viewer(c).IsAdmin {
		return db.ErrNotFound
	}
	id := strings.TrimSpace(c.FormValue("agent"))
	if id != "" {
		ag, err := a.store.AgentByIdentifier(ctx, id)
		if err != nil && !errors.Is(err, db.ErrNotFound) {
			return err
		}
		if err != nil || ag.Visibility != "public" || ag.PasswordHash != nil || !identifierParam.MatchString(id) {
			p, err := a.agentsPage(c)
			if err != nil {
				return err
			}
			p.WidgetAgent, p.WidgetError = id, "Pick the identifier of a public agent without a password."
			return render(c, http.StatusUnprocessableEntity, views.AgentsListPage(p))
		}
	}
	if err := a.store.SetFloatingWidgetAgent(ctx, id); err != nil {
		return err
	}
	a.forgetWidget()
	return redirect(c, "/agents")
}

// forgetWidget makes this instance read the floating chat button's setting again.
func (a *app) forgetWidget() {
	a.widget.mu.Lock()
	a.widget.read = time.Time{}
	a.widget.mu.Unlock()
}
