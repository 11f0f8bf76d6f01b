package handlers

import (
	"github.com/labstack/echo/v4"
)

// agentRoutes registers agent management, teams, public agent links, guests and the embed widget
// (SPEC.md §4, §6).
func (a *app) agentRoutes(e *echo.Echo) {
	e.GET("/agents", a.showComingSoon("agents", "Agents"), a.requireViewer)
}
