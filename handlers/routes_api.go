package handlers

import (
	"github.com/labstack/echo/v4"
)

// apiRoutes registers the Galaxy-compatible JSON API under /api (SPEC.md §7), plus the account
// settings (API keys), per-message feedback and the feedback export it goes with. API routes take
// a session cookie (state changes then need the X-CSRF-Token header) or an x-api-key header.
// Every /api route must be described in openapi.json (a test checks).
func (a *app) apiRoutes(e *echo.Echo) {
	e.GET("/api/openapi.json", serveOpenAPI)
	e.POST("/api/chat", a.apiChat, a.apiAuth)
	e.POST("/api/chat/stream", a.apiChatStream, a.apiAuth)
	e.GET("/api/chat/history", a.apiHistory, a.apiAuth)
	e.DELETE("/api/chat/history", a.apiClearHistory, a.apiAuth)
	e.GET("/api/chat/page/:page_id/history", a.apiPageHistory, a.apiAuth)
	e.GET("/api/chat/exchange/:id/messages", a.apiExchangeMessages, a.apiAuth)
	e.PUT("/api/chat/exchange/:id/feedback", a.apiExchangeFeedback, a.apiAuth)
	e.PUT("/api/chat/exchange/:id/messages/:message_id/feedback", a.apiMessageFeedback, a.apiAuth)
	e.DELETE("/api/chat/exchange/:id", a.apiDeleteExchange, a.apiAuth)
	e.PUT("/api/chat/exchanges/batch/delete", a.apiBatchDelete, a.apiAuth)
	e.POST("/sessions/:id/messages/:mid/feedback", a.submitFeedback, a.requireChatter) // users and guests
	a.accountRoutes(e)
}
