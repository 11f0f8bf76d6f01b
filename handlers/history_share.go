package handlers

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/markdown"
	"parley/views"
)

// sharedMessage is one question or answer as frozen in a share snapshot: what the read-only page
// shows, and nothing else (no ids, metadata, feedback, reasoning or tool items, which may quote the
// owner's other conversations).
type sharedMessage struct {
	Role        string    `json:"role"`
	Content     string    `json:"content"`
	Status      string    `json:"status"`
	AgentName   string    `json:"agent_name,omitempty"`
	AgentAvatar string    `json:"agent_avatar,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
}

// shared reports whether a message of role goes into share snapshots: questions and answers only.
func shared(role string) bool {
	return role == db.RoleUser || role == db.RoleAssistant
}

// showShares lists the conversation's share links (under PARLEY_PUBLIC_URL), to create one or
// revoke them.
func (a *app) showShares(c echo.Context) error {
	e, err := a.ownExchange(c)
	if err != nil {
		return err
	}
	shares, err := a.store.ExchangeShares(c.Request().Context(), viewer(c).ID, e.ID)
	if err != nil {
		return err
	}
	base := strings.TrimRight(a.cfg.PublicURL, "/")
	links := make([]views.ShareLink, len(shares))
	for i, s := range shares {
		links[i] = views.ShareLink{ID: s.ID, URL: base + "/share/" + s.Token, CreatedAt: s.CreatedAt, Revoked: s.RevokedAt != nil}
	}
	return render(c, http.StatusOK, views.SharesPage(page(c, "Share", "chat"), e.ID, displayTitle(e.Title), links))
}

// submitShare freezes the branch on screen into a new share link.
func (a *app) submitShare(c echo.Context) error {
	ctx := c.Request().Context()
	e, err := a.ownExchange(c)
	if err != nil {
		return err
	}
	msgs, err := a.store.ExchangeMessages(ctx, e.ID)
	if err != nil {
		return err
	}
	agents, err := a.store.AgentsByID(ctx, agentIDs(msgs))
	if err != nil {
		return err
	}
	snap := make([]sharedMessage, 0, len(msgs))
	for _, m := range msgs {
		if !shared(m.Role) {
			continue
		}
		s := sharedMessage{Role: m.Role, Content: m.Content, Status: m.Status, CreatedAt: m.CreatedAt}
		if m.AgentID != nil {
			s.AgentName, s.AgentAvatar = agents[*m.AgentID].Name, agents[*m.AgentID].Avatar
		}
		snap = append(snap, s)
	}
	body, err := json.Marshal(snap)
	if err != nil {
		return err
	}
	if _, err := a.store.CreateShare(ctx, viewer(c).ID, e.ID, newShareToken(), displayTitle(e.Title), body); err != nil {
		return err
	}
	return redirect(c, historyURLOf(e.ID, "/share"))
}

// submitRevokeShare ends a share link; it answers 404 from then on.
func (a *app) submitRevokeShare(c echo.Context) error {
	e, err := a.ownExchange(c)
	if err != nil {
		return err
	}
	sid, err := pathID(c, "sid")
	if err != nil {
		return err
	}
	if err := a.store.RevokeShare(c.Request().Context(), viewer(c).ID, e.ID, sid); err != nil {
		return err
	}
	return redirect(c, historyURLOf(e.ID, "/share"))
}

// showShared is the public, read-only page of a share link: the snapshot as it was when shared.
// An unknown or revoked token, or a conversation in the Trash, is 404.
func (a *app) showShared(c echo.Context) error {
	token := c.Param("token")
	if !validShareToken(token) {
		return a.notFound(c)
	}
	s, err := a.store.SharedSnapshot(c.Request().Context(), token)
	if err != nil {
		if errors.Is(err, db.ErrNotFound) {
			return a.notFound(c)
		}
		return err
	}
	var snap []sharedMessage
	if err := json.Unmarshal(s.Snapshot, &snap); err != nil {
		return err
	}
	msgs := make([]views.MessageView, 0, len(snap))
	for _, m := range snap {
		if !shared(m.Role) {
			continue // snapshots stored before tool items were left out
		}
		v := views.MessageView{Role: m.Role, Status: m.Status, At: m.CreatedAt, AgentName: m.AgentName, AgentAvatar: m.AgentAvatar}
		if v.AgentName == "" {
			v.AgentName, v.AgentAvatar = "Assistant", "✨"
		}
		if m.Role == db.RoleAssistant {
			v.HTML = markdown.RenderFinal(m.Content)
		} else {
			v.Text = m.Content
		}
		msgs = append(msgs, v)
	}
	c.Response().Header().Set("X-Robots-Tag", "noindex")
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, http.StatusOK, views.SharedPage(page(c, s.Title, ""), s.Title, s.CreatedAt, msgs))
}

// newShareToken is a share link's secret: 32 random bytes, base64url (43 characters).
func newShareToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func validShareToken(t string) bool {
	if len(t) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(t)
	return err == nil
}

func historyURLOf(exchangeID int64, suffix string) string {
	return "/sessions/" + strconv.FormatInt(exchangeID, 10) + suffix
}
