package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"parley/db"
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

// apiExchangeMessages is GET /api/chat/exchange/{id}/messages: every message of the caller's
// exchange in order (all five roles); someone else's, a missing one or one about a page in the
// trash is 404, not Galaxy's [].
func (a *app) apiExchangeMessages(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if _, err := a.store.OwnerExchange(ctx, db.Owner{UserID: viewer(c).ID}, id); err != nil {
		return err
	}
	msgs, err := a.store.ExchangeMessages(ctx, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, newMessageItems(msgs))
}
