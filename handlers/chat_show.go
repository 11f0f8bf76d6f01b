package handlers

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/views"
)

// historyPageSize is how many conversations the sidebar's first page shows.
const historyPageSize = 30

// defaultAgent is the identifier of the agent general chat talks to.
const defaultAgent = "auto"

// showChat opens the newest general conversation, or the welcome screen when there is none.
func (a *app) showChat(c echo.Context) error {
	e, err := a.store.LatestGeneralExchange(c.Request().Context(), viewer(c).ID)
	if errors.Is(err, db.ErrNotFound) {
		return a.renderChatPage(c, 0)
	}
	if err != nil {
		return err
	}
	return redirect(c, sessionURL(e.ID))
}

// showNewChat is the welcome screen of a conversation that starts with the first message.
func (a *app) showNewChat(c echo.Context) error { return a.renderChatPage(c, 0) }

// showSession continues one conversation; someone else's is 404.
func (a *app) showSession(c echo.Context) error {
	id, err := pathID(c, "id")
	if err == nil {
		err = a.renderChatPage(c, id)
	}
	if errors.Is(err, db.ErrNotFound) {
		return render(c, http.StatusNotFound, views.ConversationNotFoundPage(page(c, "Conversation not found", "chat")))
	}
	return err
}

func (a *app) renderChatPage(c echo.Context, exchangeID int64) error {
	pane, err := a.chatPane(c.Request().Context(), c, exchangeID)
	if err != nil {
		return err
	}
	return a.renderChatPageWith(c, pane, http.StatusOK)
}

// renderChatPageWith renders the whole chat page, with the history sidebar's first page, around a
// built pane. /chat/new?undo=ids&was=id (after the open conversation id was deleted) shows the Undo
// toast for those of ids still in the viewer's Trash.
// Guests, the widget and team chats get their own page around the pane (renderAgentPage).
func (a *app) renderChatPageWith(c echo.Context, pane views.ChatPane, status int) error {
	if viewer(c) == nil || pane.Embed || pane.Team != nil {
		return a.renderAgentPage(c, pane, status)
	}
	items, more, err := a.historyPage(c, nil)
	if err != nil {
		return err
	}
	title := "Chat"
	for i := range items {
		items[i].Active = items[i].ID == pane.ExchangeID
		if items[i].Active {
			title = items[i].Title
		}
	}
	p := views.ChatPage{Page: page(c, title, "chat"), Pane: pane, History: items, HistoryMore: more}
	if ids := undoParam(c.QueryParam("undo")); len(ids) > 0 && pane.ExchangeID == 0 {
		trashed, err := a.store.TrashedAmong(c.Request().Context(), viewer(c).ID, ids)
		if err != nil {
			return err
		}
		if len(trashed) > 0 {
			p.Undo = undoOf(trashed)
			if was, _ := strconv.ParseInt(c.QueryParam("was"), 10, 64); slices.Contains(trashed, was) {
				p.Undo.Open = was
			}
		}
	}
	return render(c, status, views.ChatPageView(p))
}

// chatPane builds the conversation area of exchangeID (0: a new conversation with the default
// agent, or the one of the page, see newChat), for its owner (a user or a guest).
func (a *app) chatPane(ctx context.Context, c echo.Context, exchangeID int64) (views.ChatPane, error) {
	pane := a.composer(c, exchangeID, false)
	pane.ShowTools = true
	if u := viewer(c); u != nil {
		pane.ShowTools = u.ShowTools()
	}
	agentID := int64(0)
	var msgs []db.Message
	var versions map[int64]db.Siblings
	var exchange *db.Exchange
	var e db.Exchange
	if exchangeID != 0 {
		var err error
		e, err = a.store.OwnerExchange(ctx, chatOwner(c), exchangeID)
		if err != nil {
			return pane, err
		}
		exchange = &e
		if e.AgentID != nil {
			agentID = *e.AgentID
		}
		if msgs, versions, err = a.conversationWindow(c, &pane, e); err != nil {
			return pane, err
		}
	}
	agentsByID, err := a.store.AgentsByID(ctx, agentIDs(msgs, agentID))
	if err != nil {
		return pane, err
	}
	agent, ok := agentsByID[agentID]
	if !ok {
		if agent, err = a.store.AgentByIdentifier(ctx, defaultAgent); err != nil {
			return pane, err
		}
	}
	pane.Messages = messageViews(msgs, agentsByID)
	for i := range pane.Messages {
		setVersions(&pane.Messages[i], versions)
	}
	pane.Busy = busy(msgs) || a.generator.Running(exchangeID)
	return pane, a.dressPane(c, &pane, agent, exchange, msgs)
}

// pathID reads a positive integer path parameter; anything else is 404, like a missing object.
func pathID(c echo.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, db.ErrNotFound
	}
	return id, nil
}
