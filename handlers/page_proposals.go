package handlers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/fault"
	"parley/pages"
	"parley/views"
)

// showProposal is a proposal under its message, reviewed against the page as it is now. The
// panel re-requests it after every save with its checked rows (row=…) and version, which keeps
// the selection; the first load selects every row.
func (a *app) showProposal(c echo.Context) error {
	pageID, id, err := proposalIDs(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := viewer(c)
	pr, err := a.store.UserProposal(ctx, u.ID, pageID, id)
	if err != nil {
		return err
	}
	p, err := a.store.UserPage(ctx, u.ID, pageID)
	if err != nil {
		return err
	}
	params, _ := c.FormParams()
	_, refresh := params["version"]
	v, err := a.proposalView(c, pr, p, selectedRows(params["row"]), !refresh, c.QueryParam("place"))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.ProposalPanel(v))
}

// acceptProposal applies a proposal's checked rows (a full replacement's hunks, a section patch's
// sections) on the server in one
// transaction, as an `agent` revision, and answers the panel (accepted, with Undo) plus the editor's
// new text. A stale proposal, one decided meanwhile (another tab) or a page changed since the panel
// was shown answers 409 with the panel as it now reads and the reason.
func (a *app) acceptProposal(c echo.Context) error {
	pageID, id, err := proposalIDs(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := viewer(c)
	if _, err := a.store.UserProposal(ctx, u.ID, pageID, id); err != nil {
		return err // someone else's proposal is 404 whatever the form says
	}
	version, err := strconv.Atoi(c.FormValue("version"))
	if err != nil {
		return fault.Field("version", "The proposal form is missing the page version. Reload the page.")
	}
	params, _ := c.FormParams()
	rows := selectedRows(params["row"])
	place := c.FormValue("place")
	p, err := a.store.AcceptProposal(ctx, u.ID, pageID, id, func(page db.Page, pr db.Proposal) (string, error) {
		if page.Version != version {
			return "", &fault.Error{Code: fault.Conflict, Message: "The page changed since this proposal was shown. Check the updated diff and accept again."}
		}
		edit, err := pages.ParseEdit(pr.Body)
		if err != nil {
			return "", err
		}
		if _, chosen := params["place"]; chosen {
			if edit, err = edit.At(page.Content, place); err != nil {
				return "", err
			}
		}
		var picked []int
		for i := range rows {
			picked = append(picked, i)
		}
		return pages.Check(edit, pr.OriginalContentHash, page.Content).Apply(picked)
	})
	return a.answerDecision(c, pageID, id, p, err, rows, false, place)
}

// rejectProposal marks a proposal rejected (it stays rejected after a reload).
func (a *app) rejectProposal(c echo.Context) error {
	pageID, id, err := proposalIDs(c)
	if err != nil {
		return err
	}
	u := viewer(c)
	err = a.store.RejectProposal(c.Request().Context(), u.ID, pageID, id)
	return a.answerDecision(c, pageID, id, db.Page{}, err, nil, false, "")
}

// undoProposal restores the revision before an accepted proposal (a `restore` revision) and makes
// the proposal pending again, every row selected.
func (a *app) undoProposal(c echo.Context) error {
	pageID, id, err := proposalIDs(c)
	if err != nil {
		return err
	}
	p, err := a.store.UndoProposal(c.Request().Context(), viewer(c).ID, pageID, id)
	return a.answerDecision(c, pageID, id, p, err, nil, true, "")
}

// answerDecision answers an accept, reject or undo with the proposal's panel as it now reads. A
// Conflict or Invalid error is shown in the panel (status 409 or 400); the editor gets the page
// out of band when changed (a non-zero page). The panel checks rows, or every row when selectAll.
func (a *app) answerDecision(c echo.Context, pageID, id int64, changed db.Page, decideErr error, rows map[int]bool, selectAll bool, place string) error {
	if changed.ID != 0 && decideErr == nil {
		a.pageChanged(changed)
	}
	code := fault.CodeOf(decideErr)
	if decideErr != nil && code != fault.Conflict && code != fault.Invalid {
		return decideErr
	}
	ctx := c.Request().Context()
	u := viewer(c)
	pr, err := a.store.UserProposal(ctx, u.ID, pageID, id)
	if err != nil {
		return err
	}
	p, err := a.store.UserPage(ctx, u.ID, pageID)
	if err != nil {
		return err
	}
	if !isFragment(c) {
		if decideErr != nil {
			return decideErr
		}
		return c.Redirect(http.StatusSeeOther, editURL(pageID))
	}
	v, err := a.proposalView(c, pr, p, rows, selectAll, place)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if decideErr != nil {
		status = statusOf(code)
		if msg := fault.As(decideErr).Message; msg != v.Reason { // a stale reason shows once
			v.Error = msg
		}
	}
	if changed.ID != 0 && decideErr == nil {
		v.Sync = &views.PageSync{Version: changed.Version, Content: changed.Content, Title: changed.Title}
	}
	return render(c, status, views.ProposalPanel(v))
}

// proposalView reviews a stored proposal against the page. selectAll checks every row; place is
// where the person put the new section of a patch that adds one ("": where the assistant put it).
func (a *app) proposalView(c echo.Context, pr db.Proposal, p db.Page, rows map[int]bool, selectAll bool, place string) (views.ProposalView, error) {
	edit, err := pages.ParseEdit(pr.Body)
	if err != nil {
		return views.ProposalView{}, err
	}
	if place != "" || c.QueryParams().Has("place") || c.Request().PostForm.Has("place") {
		if edit, err = edit.At(p.Content, place); err != nil {
			return views.ProposalView{}, err
		}
	}
	v := views.ProposalView{ID: pr.ID, PageID: pr.PageID, Kind: pr.Kind, Status: pr.Status, Summary: edit.Summary(),
		Reasoning: edit.Reasoning, Version: p.Version, Selected: map[int]bool{}}
	if pr.Status != db.ProposalPending {
		return v, nil
	}
	for _, pl := range edit.Places(p.Content) {
		v.Places = append(v.Places, views.Place{Value: pl.Target, Label: pl.Label})
	}
	v.Place = edit.Target
	r := pages.Check(edit, pr.OriginalContentHash, p.Content)
	v.Stale, v.Reason, v.Note, v.Unchanged, v.Warning = r.Stale, r.Reason, r.Note, r.Unchanged, r.Warning
	v.Diff = diffView(r.Diff)
	for _, row := range r.Rows {
		v.Rows = append(v.Rows, views.ProposalRow{Index: row.Index, Label: row.Label, Change: row.Change, Diff: diffView(row.Diff)})
		v.Selected[row.Index] = selectAll || rows[row.Index]
	}
	if r.Stale && pr.Query != "" {
		v.RedoURL, v.RedoQuery, v.RedoKey = views.PagePostURL(pr.PageID, pr.ExchangeID), pr.Query, newIdempotencyKey()
	}
	return v, nil
}

// selectedRows reads the checked row indexes of a section patch (bad values are ignored).
func selectedRows(values []string) map[int]bool {
	rows := map[int]bool{}
	for _, s := range values {
		if i, err := strconv.Atoi(s); err == nil && i >= 0 {
			rows[i] = true
		}
	}
	return rows
}

func proposalIDs(c echo.Context) (pageID, id int64, err error) {
	if pageID, err = pathID(c, "id"); err != nil {
		return
	}
	id, err = pathID(c, "pid")
	return
}
