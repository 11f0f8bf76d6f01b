package handlers

import (
	"github.com/labstack/echo/v4"
)

// historyRoutes registers conversation history management: search, trash, branches, export and
// share links (SPEC.md §4 "History sidebar", "Per message"). Routes addressing one conversation use
// requireOwner (signed-in people) or requireChatterOwner (guests too: older messages and versions):
// a client with neither gets the same 404 as a stranger.
func (a *app) historyRoutes(e *echo.Echo) {
	e.GET("/history", a.showHistoryPage, a.requireViewer)
	e.POST("/history/delete", a.submitDeleteMany, a.requireViewer)
	e.POST("/history/restore", a.submitRestore, a.requireViewer)
	e.POST("/history/clear", a.submitClearHistory, a.requireViewer)
	e.GET("/history/trash", a.showTrash, a.requireViewer)
	e.GET("/history/search", a.showSearch, a.requireViewer)
	e.POST("/history/trash/restore", a.submitTrashRestore, a.requireViewer)
	e.POST("/history/trash/purge", a.submitPurge, a.requireViewer)
	e.POST("/history/trash/restore-all", a.submitRestoreAll, a.requireViewer)
	e.POST("/history/trash/empty", a.submitEmptyTrash, a.requireViewer)

	e.GET("/sessions/:id/item", a.showHistoryItem, a.requireOwner)
	e.GET("/sessions/:id/rename", a.showRenameForm, a.requireOwner)
	e.POST("/sessions/:id/rename", a.submitRename, a.requireOwner)
	e.POST("/sessions/:id/delete", a.submitDelete, a.requireOwner)
	e.GET("/sessions/:id/messages", a.showOlderMessages, a.requireChatterOwner)
	e.GET("/sessions/:id/messages/:mid/arguments", a.showToolArguments, a.requireChatterOwner)
	e.POST("/sessions/:id/messages/:mid/regenerate", a.submitRegenerate, a.requireChatterOwner)
	e.POST("/sessions/:id/messages/:mid/edit", a.submitEdit, a.requireChatterOwner)
	e.POST("/sessions/:id/messages/:mid/switch", a.submitSwitch, a.requireChatterOwner)
	e.GET("/sessions/:id/export.md", a.exportMarkdown, a.requireOwner)
	e.GET("/sessions/:id/export.json", a.exportJSON, a.requireOwner)
	e.GET("/sessions/:id/share", a.showShares, a.requireOwner)
	e.POST("/sessions/:id/share", a.submitShare, a.requireOwner)
	e.POST("/sessions/:id/share/:sid/revoke", a.submitRevokeShare, a.requireOwner)
	// Public: anyone holding a live link sees its snapshot.
	e.GET("/share/:token", a.showShared)
}
