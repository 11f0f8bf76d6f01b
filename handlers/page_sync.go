package handlers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
)

// pageSyncResponse is the page as stored, for an editor that holds an older version.
type pageSyncResponse struct {
	Version int    `json:"version"`
	Title   string `json:"title"`
	Content string `json:"content"`
}

// syncPage tells an open editor whether the page changed elsewhere (another tab or device, an
// accepted proposal, an undo or a restore): GET /pages/:id/sync?version=n answers 204 while the
// stored version is n, else the stored version, title and content. page.js asks when the page's
// event stream (/pages/:id/events) announces a version newer than the one it holds.
func (a *app) syncPage(c echo.Context) error {
	p, err := a.viewerPage(c)
	if err != nil {
		return err
	}
	if known, err := strconv.Atoi(c.QueryParam("version")); err == nil && known == p.Version {
		return c.NoContent(http.StatusNoContent)
	}
	return c.JSON(http.StatusOK, pageSyncResponse{Version: p.Version, Title: p.Title, Content: p.Content})
}
