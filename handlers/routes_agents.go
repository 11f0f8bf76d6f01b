package handlers

import (
	"github.com/labstack/echo/v4"
)

// agentRoutes registers agent management, teams, public agent links, guests and the embed widget
// (SPEC.md §4, §6). Management routes are scoped to the agent's owner and admins (others get 404);
// public links and the widget are open to guests; every POST is CSRF-checked by the middleware.
func (a *app) agentRoutes(e *echo.Echo) {
	e.GET("/agents", a.showAgents, a.requireViewer)
	e.GET("/agents/new", a.showNewAgent, a.requireViewer)
	e.POST("/agents", a.submitNewAgent, a.requireViewer)
	e.POST("/agents/widget", a.submitWidget, a.requireViewer)
	e.GET("/agents/:id/edit", a.showEditAgent, a.requireViewer)
	e.POST("/agents/:id", a.submitEditAgent, a.requireViewer)
	e.POST("/agents/:id/disable", a.submitDisableAgent, a.requireViewer)
	e.POST("/agents/:id/delete", a.submitDeleteAgent, a.requireViewer)
	e.GET("/agents/:id/chat", a.showAgentChat, a.requireViewer)
	e.POST("/agents/:id/messages", a.submitAgentMessage, a.requireViewer)

	e.GET("/avatars/:hash", a.showAvatar)

	// Public links: anyone, guests included.
	e.GET("/chat/:identifier", a.showPublicAgentChat, a.withGuest)
	e.GET("/chat/agent/:identifier", a.showPublicAgentChat, a.withGuest)
	e.POST("/chat/:identifier/messages", a.submitPublicAgentMessage, a.withGuest)
	e.POST("/chat/:identifier/unlock", a.submitUnlock, a.withGuest)

	// The embeddable widget: frame-ancestors from the agent's allow-list.
	e.GET("/embed/agent/:identifier", a.showEmbed, a.withGuest)
	e.POST("/embed/agent/:identifier/messages", a.submitEmbedMessage, a.withGuest)
	e.POST("/embed/agent/:identifier/unlock", a.submitUnlock, a.withGuest)

	e.GET("/teams", a.showTeams, a.requireViewer)
	e.GET("/teams/new", a.showNewTeam, a.requireViewer)
	e.POST("/teams", a.submitNewTeam, a.requireViewer)
	e.GET("/teams/:id/edit", a.showEditTeam, a.requireViewer)
	e.POST("/teams/:id", a.submitEditTeam, a.requireViewer)
	e.POST("/teams/:id/delete", a.submitDeleteTeam, a.requireViewer)
	e.GET("/teams/:id/chat", a.showTeamChat, a.requireViewer)
	e.POST("/teams/:id/messages", a.submitTeamMessage, a.requireViewer)
}
