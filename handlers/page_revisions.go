package handlers

import (
	"net/http"
	"strconv"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/markdown"
	"parley/views"
)

// revisionsPageSize is how many revisions the panel lists at once.
const revisionsPageSize = 50

// showRevisions is the revisions panel (newest first; ?before=<version> for older ones). A full
// navigation gets the editor with the panel open.
func (a *app) showRevisions(c echo.Context) error {
	p, err := a.viewerPage(c)
	if err != nil {
		return err
	}
	before, _ := strconv.Atoi(c.QueryParam("before"))
	v, err := a.revisionsView(c, p, max(before, 0))
	if err != nil {
		return err
	}
	if !isFragment(c) {
		return a.renderEditor(c, p, &v)
	}
	return render(c, http.StatusOK, views.RevisionsView(v))
}

// revisionsView lists the page's revisions with a version below before (0: the newest).
func (a *app) revisionsView(c echo.Context, p db.Page, before int) (views.Revisions, error) {
	rows, err := a.store.Revisions(c.Request().Context(), viewer(c).ID, p.ID, before, revisionsPageSize+1)
	if err != nil {
		return views.Revisions{}, err
	}
	v := views.Revisions{PageID: p.ID}
	if len(rows) > revisionsPageSize {
		rows = rows[:revisionsPageSize]
		v.More = "/pages/" + strconv.FormatInt(p.ID, 10) + "/revisions?before=" + strconv.Itoa(rows[len(rows)-1].Version)
	}
	for _, r := range rows {
		v.Rows = append(v.Rows, views.RevisionRow{ID: r.ID, Version: r.Version, EditSource: r.EditSource, At: r.CreatedAt, Current: p.CurrentRevisionID != nil && *p.CurrentRevisionID == r.ID})
	}
	return v, nil
}

// showRevision is one revision's diff against the revision before it, with Restore.
func (a *app) showRevision(c echo.Context) error {
	p, err := a.viewerPage(c)
	if err != nil {
		return err
	}
	rid, err := pathID(c, "rid")
	if err != nil {
		return err
	}
	r, prev, err := a.store.RevisionWithPrevious(c.Request().Context(), viewer(c).ID, p.ID, rid)
	if err != nil {
		return err
	}
	old := ""
	if prev != nil {
		old = prev.Content
	}
	v := views.RevisionDetail{PageID: p.ID, ID: r.ID, Version: r.Version, EditSource: r.EditSource, At: r.CreatedAt,
		First: prev == nil, Current: p.CurrentRevisionID != nil && *p.CurrentRevisionID == r.ID,
		Diff: diffView(markdown.LineDiff(old, r.Content))}
	return render(c, http.StatusOK, views.RevisionDetailView(v))
}

// restoreRevision makes a revision the page's content again (a new `restore` revision) and answers
// the refreshed panel plus the editor's new text out of band.
func (a *app) restoreRevision(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	rid, err := pathID(c, "rid")
	if err != nil {
		return err
	}
	p, err := a.store.RestoreRevision(c.Request().Context(), viewer(c).ID, id, rid)
	if err != nil {
		return err
	}
	a.pageChanged(p)
	if !isFragment(c) {
		return c.Redirect(http.StatusSeeOther, editURL(id))
	}
	v, err := a.revisionsView(c, p, 0)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templ.Join(views.RevisionsView(v),
		views.PageSyncView(views.PageSync{Version: p.Version, Content: p.Content, Title: p.Title})))
}
