package handlers

import (
	"github.com/labstack/echo/v4"
)

// apiRoutes registers the Galaxy-compatible JSON API under /api (SPEC.md §7).
func (a *app) apiRoutes(e *echo.Echo) {}
