package handlers

import (
	"github.com/labstack/echo/v4"
)

// apiRoutes registers the Galaxy-compatible JSON API under /api (SPEC.md §7), plus the account
// settings (API keys), per-message feedback and the feedback export it goes with.
func (a *app) apiRoutes(e *echo.Echo) {
	a.accountRoutes(e)
}
