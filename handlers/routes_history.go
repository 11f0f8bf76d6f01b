package handlers

import (
	"github.com/labstack/echo/v4"
)

// historyRoutes registers conversation history management: search, trash, branches, export and
// share links (SPEC.md §4 "History sidebar", "Per message").
func (a *app) historyRoutes(e *echo.Echo) {}
