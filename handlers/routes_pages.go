package handlers

import (
	"github.com/labstack/echo/v4"
)

// pageRoutes registers the page editor and its chat panel (SPEC.md §5).
func (a *app) pageRoutes(e *echo.Echo) {
	e.GET("/pages", a.showComingSoon("pages", "Pages"), a.requireViewer)
}
