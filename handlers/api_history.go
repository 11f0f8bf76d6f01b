package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/fault"
)

// apiHistory is GET /api/chat/history?limit=: the caller's general exchanges, most recent activity
// first (limit 1–200, default 50).
func (a *app) apiHistory(c echo.Context) error {
	limit, err := apiLimit(c)
	if err != nil {
		return err
	}
	rows, err := a.store.GeneralOverviews(c.Request().Context(), viewer(c).ID, limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, newHistoryItems(rows))
}

// apiPageHistory is GET /api/chat/page/{page_id}/history?limit=: the caller's own exchanges about
// one of their pages; someone else's or a missing page is 404.
func (a *app) apiPageHistory(c echo.Context) error {
	pageID, err := pathID(c, "page_id")
	if err != nil {
		return err
	}
	limit, err := apiLimit(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := viewer(c)
	if _, err := a.store.UserPage(ctx, u.ID, pageID); err != nil {
		return err
	}
	rows, err := a.store.PageOverviews(ctx, u.ID, pageID, limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, newHistoryItems(rows))
}

// apiExchangeMessages is GET /api/chat/exchange/{id}/messages?kinds=: the caller's exchange in
// order, on the branch on screen. By default in Galaxy's shape, as ChatGXY's loadPreviousChat
// reads it: user and assistant items only, alternating, each answer's reasoning and tool items
// folded into its agent_response (reasoning, metadata.tool_calls). kinds=all returns every item of
// the five kinds instead. Someone else's, a missing one or one about a page in the trash is 404,
// not Galaxy's []; another kinds value is 400 naming the field.
func (a *app) apiExchangeMessages(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	kinds := c.QueryParam("kinds")
	if kinds != "" && kinds != "all" {
		return fault.Field("kinds", `kinds must be "all" (every item) or left out (Galaxy's user/assistant pairs).`)
	}
	ctx := c.Request().Context()
	if _, err := a.store.OwnerExchange(ctx, db.Owner{UserID: viewer(c).ID}, id); err != nil {
		return err
	}
	msgs, err := a.store.ExchangeMessages(ctx, id)
	if err != nil {
		return err
	}
	if kinds == "all" {
		return c.JSON(http.StatusOK, newMessageItems(msgs))
	}
	return c.JSON(http.StatusOK, newGalaxyMessageItems(msgs))
}
