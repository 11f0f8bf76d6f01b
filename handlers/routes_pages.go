package handlers

import (
	"github.com/labstack/echo/v4"
)

// pageRoutes registers the page editor and its chat panel (SPEC.md §5).
func (a *app) pageRoutes(e *echo.Echo) {
	v := a.requireViewer
	e.GET("/pages", a.showPages, v)
	e.GET("/pages/new", a.showNewPage, v)
	e.POST("/pages", a.createPage, v)
	e.GET("/pages/:id", a.showPage, v)
	e.GET("/pages/:id/edit", a.showEditor, v)
	e.POST("/pages/:id/save", a.savePage, v)
	e.GET("/pages/:id/sync", a.syncPage, v)
	e.GET("/pages/:id/events", a.pageEvents, v)
	e.POST("/pages/:id/preview", a.previewPage, v)
	e.POST("/pages/:id/trash", a.trashPage, v)
	e.POST("/pages/:id/restore", a.restorePage, v)
	e.POST("/pages/:id/purge", a.purgePage, v)

	e.GET("/pages/:id/revisions", a.showRevisions, v)
	e.GET("/pages/:id/revisions/compare", a.compareRevisions, v)
	e.GET("/pages/:id/revisions/:rid", a.showRevision, v)
	e.POST("/pages/:id/revisions/:rid/restore", a.restoreRevision, v)

	e.GET("/pages/:id/proposals/:pid", a.showProposal, v)
	e.POST("/pages/:id/proposals/:pid/accept", a.acceptProposal, v)
	e.POST("/pages/:id/proposals/:pid/reject", a.rejectProposal, v)
	e.POST("/pages/:id/proposals/:pid/undo", a.undoProposal, v)

	e.GET("/pages/:id/chats/new", a.showNewPageChat, v)
	e.GET("/pages/:id/chats/:eid", a.showPageChat, v)
	e.POST("/pages/:id/chats", a.submitPageMessage, v)
	e.POST("/pages/:id/chats/:eid/messages", a.submitPageMessage, v)
	e.POST("/pages/:id/chats/delete", a.deletePageChats, v)
	e.POST("/pages/:id/chats/restore", a.restorePageChats, v)
}
