package handlers

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/fault"
	"parley/markdown"
	"parley/pages"
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

// revisionsView lists the page's revisions with a version below before (0: the newest), each with
// what it changed; what was not yet stored is computed for the listed rows and stored (see
// revisionChanges).
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
	changes, err := a.revisionChanges(c, p.ID, rows)
	if err != nil {
		return views.Revisions{}, err
	}
	for _, r := range rows {
		ch := changes[r.ID]
		v.Rows = append(v.Rows, views.RevisionRow{ID: r.ID, Version: r.Version, EditSource: r.EditSource, At: r.CreatedAt,
			Current: p.CurrentRevisionID != nil && *p.CurrentRevisionID == r.ID, Adds: ch.Adds, Dels: ch.Dels, Sections: ch.Sections})
	}
	return v, nil
}

// revisionChanges is what each listed revision changed: stored with the row, or (new rows, rows
// from before migration 00022, a revision an autosave coalesced into) computed from the listed
// rows' texts read in one statement and stored in another, so a list costs at most three
// statements and each revision is compared once.
func (a *app) revisionChanges(c echo.Context, pageID int64, rows []db.RevisionSummary) (map[int64]db.RevisionChange, error) {
	ctx := c.Request().Context()
	out := make(map[int64]db.RevisionChange, len(rows))
	var missing []int64
	for _, r := range rows {
		var sections []string
		if r.Adds == nil || r.Dels == nil || json.Unmarshal(r.Sections, &sections) != nil {
			missing = append(missing, r.ID)
			continue
		}
		out[r.ID] = db.RevisionChange{ID: r.ID, Adds: *r.Adds, Dels: *r.Dels, Sections: sections}
	}
	if len(missing) == 0 {
		return out, nil
	}
	texts, err := a.store.RevisionTexts(ctx, pageID, missing)
	if err != nil {
		return nil, err
	}
	computed := make([]db.RevisionChange, 0, len(texts))
	for _, t := range texts {
		s := pages.SummarizeRevision(t.Previous, t.Content)
		ch := db.RevisionChange{ID: t.ID, Adds: s.Adds, Dels: s.Dels, Sections: s.Sections}
		if ch.Sections == nil {
			ch.Sections = []string{}
		}
		out[t.ID] = ch
		computed = append(computed, ch)
	}
	return out, a.store.SetRevisionChanges(ctx, pageID, computed)
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

// compareRevisions is the diff between two revisions the person ticked (compare=<id>, twice), from
// the older to the newer, with Restore of the newer. Anything but two distinct revisions of this
// page is refused.
func (a *app) compareRevisions(c echo.Context) error {
	p, err := a.viewerPage(c)
	if err != nil {
		return err
	}
	picked := c.QueryParams()["compare"]
	if len(picked) != 2 || picked[0] == picked[1] {
		return fault.Field("compare", "Tick exactly two revisions to compare.")
	}
	var ids [2]int64
	for i, s := range picked {
		if ids[i], err = strconv.ParseInt(s, 10, 64); err != nil || ids[i] <= 0 {
			return db.ErrNotFound
		}
	}
	older, newer, err := a.store.RevisionPair(c.Request().Context(), viewer(c).ID, p.ID, ids[0], ids[1])
	if err != nil {
		return err
	}
	v := views.RevisionDetail{PageID: p.ID, ID: newer.ID, Version: newer.Version, EditSource: newer.EditSource, At: newer.CreatedAt,
		Against: older.Version, Current: p.CurrentRevisionID != nil && *p.CurrentRevisionID == newer.ID,
		Diff: diffView(markdown.LineDiff(older.Content, newer.Content))}
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
