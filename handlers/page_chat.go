package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"parley/chat"
	"parley/db"
	"parley/fault"
	"parley/views"
)

// pageAgent is the identifier of the agent a page's chat talks to ("Markdown Assistant").
const pageAgent = "markdown-assistant"

// pageChatListSize bounds the page chat's history list.
const pageChatListSize = 50

// showNewPageChat is an empty chat pane about the page; the first message starts the conversation.
func (a *app) showNewPageChat(c echo.Context) error {
	p, err := a.viewerPage(c)
	if err != nil {
		return err
	}
	pane, err := a.pageChatPane(c, p.ID, 0)
	if err != nil {
		return err
	}
	return a.renderPageChat(c, pane, http.StatusOK)
}

// showPageChat switches the panel to one of the page's conversations.
func (a *app) showPageChat(c echo.Context) error {
	p, err := a.viewerPage(c)
	if err != nil {
		return err
	}
	eid, err := pathID(c, "eid")
	if err != nil {
		return err
	}
	if _, err := a.store.PageExchange(c.Request().Context(), viewer(c).ID, p.ID, eid); err != nil {
		return err
	}
	pane, err := a.pageChatPane(c, p.ID, eid)
	if err != nil {
		return err
	}
	return a.renderPageChat(c, pane, http.StatusOK)
}

// renderPageChat answers the pane plus the refreshed history list (out of band); a full navigation
// opens the editor with that conversation.
func (a *app) renderPageChat(c echo.Context, pane views.ChatPane, status int) error {
	if !isFragment(c) {
		to := editURL(pane.PageID)
		if pane.ExchangeID != 0 {
			to += "?chat=" + strconv.FormatInt(pane.ExchangeID, 10)
		}
		return c.Redirect(http.StatusSeeOther, to)
	}
	list, err := a.pageChatHistory(c, pane.PageID, pane.ExchangeID)
	if err != nil {
		return err
	}
	return render(c, status, templ.Join(views.ChatPaneView(pane), views.PageChatHistoryBody(list)))
}

// pageChatPane builds the chat pane of one conversation about the page (0: a new one with the
// Markdown Assistant). The caller has checked the page and the exchange belong to the viewer.
func (a *app) pageChatPane(c echo.Context, pageID, exchangeID int64) (views.ChatPane, error) {
	ctx := c.Request().Context()
	var pane views.ChatPane
	var err error
	if exchangeID != 0 {
		pane, err = a.chatPane(ctx, c, exchangeID)
	} else {
		pane = a.composer(c, 0, false)
		pane.ShowTools = viewer(c).ShowTools()
		var ag db.Agent
		if ag, err = a.store.AgentByIdentifier(ctx, pageAgent); err == nil {
			pane.Agent = views.AgentView{Name: ag.Name, Avatar: ag.Avatar, Welcome: ag.WelcomeMessage}
		}
	}
	pane.PageID = pageID
	return pane, err
}

// pageChatHistory is the page chat's history list with exchangeID marked active.
func (a *app) pageChatHistory(c echo.Context, pageID, exchangeID int64) (views.PageChatHistory, error) {
	rows, err := a.store.PageExchanges(c.Request().Context(), viewer(c).ID, pageID, pageChatListSize)
	if err != nil {
		return views.PageChatHistory{}, err
	}
	return views.PageChatHistory{PageID: pageID, Items: pageChatItems(rows, pageID, exchangeID)}, nil
}

func pageChatItems(rows []db.ExchangeSummary, pageID, active int64) []views.PageChatItem {
	items := make([]views.PageChatItem, len(rows))
	for i, r := range rows {
		items[i] = views.PageChatItem{ID: r.ID, PageID: pageID, Title: r.Title, Turns: r.Turns, At: r.UpdatedAt, Active: r.ID == active}
	}
	return items
}

// submitPageMessage sends a message in a chat about the page: the first one (POST /pages/:id/chats)
// starts a conversation with the Markdown Assistant, which sees the page and proposes edits. It
// answers like the chat page's composer: a new conversation's whole pane, or a fresh composer with
// the new messages out of band; plus the refreshed history list.
func (a *app) submitPageMessage(c echo.Context) error {
	ctx := c.Request().Context()
	u := viewer(c)
	p, err := a.viewerPage(c)
	if err != nil {
		return err
	}
	var exchange *db.Exchange
	var exchangeID int64
	if c.Param("eid") != "" {
		eid, err := pathID(c, "eid")
		if err != nil {
			return err
		}
		e, err := a.store.PageExchange(ctx, u.ID, p.ID, eid)
		if err != nil {
			return err
		}
		exchange, exchangeID = &e, eid
	}
	query := c.FormValue("query")
	refuse := func(status int, msg string, retryAfter int) error {
		if !isFragment(c) {
			return a.renderRefusedPageMessage(c, p, exchangeID, status, query, msg, retryAfter)
		}
		composer := a.composer(c, exchangeID, status == http.StatusConflict || a.generator.Running(exchangeID))
		composer.PageID = p.ID
		composer.Query, composer.QueryError, composer.RetryAfter = query, msg, retryAfter
		c.Response().Header().Set("HX-Retarget", "#composer")
		c.Response().Header().Set("HX-Reswap", "outerHTML")
		return render(c, status, views.Composer(composer))
	}
	if err := chat.CheckQuery(query, a.cfg.MaxQueryChars); err != nil {
		return refuse(http.StatusUnprocessableEntity, fault.As(err).Message, 0)
	}
	key := c.FormValue("idempotency_key")
	if !validKey(key) {
		return refuse(http.StatusBadRequest, "This form is damaged (bad idempotency_key). Reload the page and send again.", 0)
	}
	if wait, ok := a.limits.allowMessage(ctx, u.ID, c.RealIP()); !ok {
		secs := int(wait.Seconds() + 0.999)
		c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		return refuse(http.StatusTooManyRequests, "", secs)
	}
	agent, err := a.pageExchangeAgent(ctx, exchange)
	if err != nil {
		return err
	}
	turn, err := a.beginTurn(ctx, db.NewTurn{
		UserID: u.ID, ExchangeID: exchangeID, AgentID: agent.ID, AgentType: agent.AgentType,
		Title: chat.TitleFrom(query), Query: query, IdempotencyKey: key, PageID: p.ID,
	}, chat.Job{UserID: u.ID, Agent: agent})
	if errors.Is(err, db.ErrBusy) {
		return refuse(http.StatusConflict, db.ErrBusy.Message, 0)
	}
	if err != nil {
		return err
	}
	if !isFragment(c) {
		waitCtx, cancel := context.WithTimeout(ctx, a.cfg.AnswerTimeout+5*time.Second)
		defer cancel()
		a.generator.Wait(waitCtx, turn.Exchange.ID)
		return c.Redirect(http.StatusSeeOther, editURL(p.ID)+"?chat="+strconv.FormatInt(turn.Exchange.ID, 10))
	}
	list, err := a.pageChatHistory(c, p.ID, turn.Exchange.ID)
	if err != nil {
		return err
	}
	if exchangeID == 0 {
		pane, err := a.pageChatPane(c, p.ID, turn.Exchange.ID)
		if err != nil {
			return err
		}
		c.Response().Header().Set("HX-Retarget", "#chat-pane")
		c.Response().Header().Set("HX-Reswap", "outerHTML")
		return render(c, http.StatusOK, templ.Join(views.ChatPaneView(pane), views.PageChatHistoryBody(list)))
	}
	composer := a.composer(c, exchangeID, true)
	composer.PageID = p.ID
	turnViews := messageViews([]db.Message{turn.User, turn.Assistant}, map[int64]db.Agent{agent.ID: agent})
	return render(c, http.StatusOK, templ.Join(
		views.Composer(composer),
		views.MessagesInsert("beforeend:#message-list", turnViews, exchangeID),
		views.ChatStatus(true, true),
		views.PageChatHistoryBody(list)))
}

// renderRefusedPageMessage answers a page chat message refused without JavaScript: the editor
// again, its chat on the conversation, the composer holding the text with the reason (status is
// the refusal's, e.g. 422 for a blank or too long message).
func (a *app) renderRefusedPageMessage(c echo.Context, p db.Page, exchangeID int64, status int, query, msg string, retryAfter int) error {
	chats, err := a.store.PageExchanges(c.Request().Context(), viewer(c).ID, p.ID, pageChatListSize)
	if err != nil {
		return err
	}
	pane, err := a.pageChatPane(c, p.ID, exchangeID)
	if err != nil {
		return err
	}
	pane.Query, pane.QueryError, pane.RetryAfter = query, msg, retryAfter
	v := views.PageEditor{Page: page(c, pageTitle(p.Title), "pages"), ID: p.ID, Title: p.Title, Content: p.Content,
		Version: p.Version, Chat: pane, History: pageChatItems(chats, p.ID, exchangeID), SideWidth: viewer(c).PageSideWidth()}
	return render(c, status, views.PageEditorView(v))
}

// pageExchangeAgent is the agent of a page conversation, or the Markdown Assistant for a new one
// (or one whose agent is gone).
func (a *app) pageExchangeAgent(ctx context.Context, e *db.Exchange) (db.Agent, error) {
	if e != nil && e.AgentID != nil {
		ag, err := a.store.AgentByID(ctx, *e.AgentID)
		if !errors.Is(err, db.ErrNotFound) {
			return ag, err
		}
	}
	return a.store.AgentByIdentifier(ctx, pageAgent)
}

// deletePageChats moves the checked conversations about the page (id=…), or all of them
// (all=true), to the Trash, stops their answers and answers the new list with an Undo toast, as a
// general chat's delete does. When the open conversation goes, the panel starts a new one.
func (a *app) deletePageChats(c echo.Context) error {
	p, err := a.viewerPage(c)
	if err != nil {
		return err
	}
	params, _ := c.FormParams()
	var ids []int64
	if c.FormValue("all") != "true" {
		if len(params["id"]) > maxBatch {
			return fault.Field("id", fmt.Sprintf("Select at most %d chats at once.", maxBatch))
		}
		for _, s := range params["id"] {
			id, err := strconv.ParseInt(s, 10, 64)
			if err != nil || id <= 0 {
				return fault.Field("id", "A selected chat id is malformed.")
			}
			ids = append(ids, id)
		}
		if len(ids) == 0 {
			return fault.Field("id", "Select the chats to delete first.")
		}
	}
	moved, err := a.store.DeletePageExchanges(c.Request().Context(), viewer(c).ID, p.ID, ids)
	if err != nil {
		return err
	}
	a.stopAnswers(c.Request().Context(), moved)
	if !isFragment(c) {
		return c.Redirect(http.StatusSeeOther, editURL(p.ID))
	}
	// The open conversation may be gone: the panel decides (page.js) once the new list is in place.
	c.Response().Header().Set("HX-Trigger-After-Swap", `{"parley:page-chats-deleted": true}`)
	list, err := a.pageChatHistory(c, p.ID, 0)
	if err != nil {
		return err
	}
	undo := views.Undo{IDs: moved, Text: "Chat moved to Trash.", RestoreURL: "/pages/" + strconv.FormatInt(p.ID, 10) + "/chats/restore"}
	if len(moved) > 1 {
		undo.Text = fmt.Sprintf("%d chats moved to Trash.", len(moved))
	}
	if open := openPageChat(c); slices.Contains(moved, open) {
		undo.Open = open
	}
	return render(c, http.StatusOK, templ.Join(views.PageChatHistoryBody(list), views.UndoToast(undo, true)))
}

// restorePageChats takes page conversations out of the Trash (the toast's Undo: ids=…, and open=
// the one that was open when deleted, which opens again) and answers the refreshed list.
func (a *app) restorePageChats(c echo.Context) error {
	p, err := a.viewerPage(c)
	if err != nil {
		return err
	}
	ids, err := formIDs(c)
	if err != nil {
		return err
	}
	restored, err := a.store.RestorePageExchanges(c.Request().Context(), viewer(c).ID, p.ID, ids)
	if err != nil {
		return err
	}
	if len(restored) == 0 {
		return db.ErrNotFound
	}
	open, _ := strconv.ParseInt(c.FormValue("open"), 10, 64)
	if !slices.Contains(restored, open) {
		open = 0
	}
	if !isFragment(c) {
		to := editURL(p.ID)
		if open != 0 {
			to += "?chat=" + strconv.FormatInt(open, 10)
		}
		return c.Redirect(http.StatusSeeOther, to)
	}
	list, err := a.pageChatHistory(c, p.ID, open)
	if err != nil {
		return err
	}
	hide := views.UndoToast(views.Undo{}, true)
	if open == 0 {
		return render(c, http.StatusOK, templ.Join(views.PageChatHistoryBody(list), hide))
	}
	pane, err := a.pageChatPane(c, p.ID, open)
	if err != nil {
		return err
	}
	c.Response().Header().Set("HX-Retarget", "#chat-pane")
	c.Response().Header().Set("HX-Reswap", "outerHTML")
	return render(c, http.StatusOK, templ.Join(views.ChatPaneView(pane), views.PageChatHistoryBody(list), hide))
}

// openPageChat is the page conversation on the editor's screen (its address's ?chat=, kept by
// page.js), or 0.
func openPageChat(c echo.Context) int64 {
	u, err := url.Parse(c.Request().Header.Get("HX-Current-URL"))
	if err != nil {
		return 0
	}
	id, _ := strconv.ParseInt(u.Query().Get("chat"), 10, 64)
	return id
}

// pageOf is the page an exchange is about (0 for general chat).
func pageOf(e db.Exchange) int64 {
	if e.PageID == nil {
		return 0
	}
	return *e.PageID
}
