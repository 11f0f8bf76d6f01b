package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/views"
)

// showToolArguments answers the whole arguments of tool call :mid of the conversation, which
// transcripts cut to their opening when long. A message that is not a tool call is 404.
func (a *app) showToolArguments(c echo.Context) error {
	e, mid, err := a.ownMessage(c)
	if err != nil {
		return err
	}
	m, err := a.store.MessageByID(c.Request().Context(), e.ID, mid)
	if err != nil {
		return err
	}
	if m.Role != db.RoleFunctionCall {
		return db.ErrNotFound
	}
	return render(c, http.StatusOK, views.ToolArguments(prettyJSON(m.ToolArguments)))
}
