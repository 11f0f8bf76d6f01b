package handlers

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/fault"
)

// maxBatchDelete bounds the ids of one batch delete.
const maxBatchDelete = 1000

// apiMessage is the {"message": "…"} answer of Galaxy's delete routes, with counts.
type apiMessage struct {
	Message   string `json:"message"`
	Exchanges int    `json:"exchanges"`
	Messages  *int   `json:"messages,omitempty"`
}

// apiClearHistory is DELETE /api/chat/history: every general exchange of the caller goes to the
// trash (restorable there); page chats stay.
func (a *app) apiClearHistory(c echo.Context) error {
	ids, m, err := a.store.TrashGeneralHistory(c.Request().Context(), viewer(c).ID)
	if err != nil {
		return err
	}
	a.stopAnswers(c.Request().Context(), ids)
	n := len(ids)
	return c.JSON(http.StatusOK, apiMessage{Message: "Cleared " + strconv.Itoa(n) + " chat exchanges with " + strconv.Itoa(m) + " messages (moved to the trash)",
		Exchanges: n, Messages: &m})
}

// apiDeleteExchange is DELETE /api/chat/exchange/{id}: one exchange of the caller (of any scope)
// goes to the trash; someone else's or a missing one is 404.
func (a *app) apiDeleteExchange(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := a.store.TrashExchange(c.Request().Context(), viewer(c).ID, id); err != nil {
		return err
	}
	a.stopAnswers(c.Request().Context(), []int64{id})
	return c.JSON(http.StatusOK, apiMessage{Message: "Deleted", Exchanges: 1})
}

// apiBatchDelete is PUT /api/chat/exchanges/batch/delete with {"ids": [1, 2, …]}: all the listed
// exchanges go to the trash, or none when any is missing or someone else's (404), unlike Galaxy,
// which skipped those silently.
func (a *app) apiBatchDelete(c echo.Context) error {
	var in struct {
		IDs []int64 `json:"ids"`
	}
	if _, err := readJSON(c, &in, false); err != nil {
		return err
	}
	if len(in.IDs) == 0 || len(in.IDs) > maxBatchDelete {
		return fault.Field("ids", "ids must list 1 to "+strconv.Itoa(maxBatchDelete)+" exchange ids.")
	}
	for _, id := range in.IDs {
		if id <= 0 {
			return db.ErrNotFound
		}
	}
	ids, err := a.store.TrashExchangesAllOrNone(c.Request().Context(), viewer(c).ID, in.IDs)
	if err != nil {
		return err
	}
	a.stopAnswers(c.Request().Context(), ids)
	return c.JSON(http.StatusOK, apiMessage{Message: "Deleted " + strconv.Itoa(len(ids)) + " exchanges", Exchanges: len(ids)})
}

// stopAnswers stops the answers being written in exchanges that went to the trash, so no model
// keeps working for a conversation nobody sees, whichever instance generates them
// (Generator.StopAll). The move to the trash stands if the stop request cannot be stored; the
// answer then finishes in the trash.
func (a *app) stopAnswers(ctx context.Context, exchangeIDs []int64) {
	if err := a.generator.StopAll(ctx, exchangeIDs); err != nil {
		a.log.Warn("asking other instances to stop answers of trashed conversations", "error", err)
	}
}
