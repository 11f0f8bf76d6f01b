package handlers

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/fault"
	"parley/views"
)

// maxBatch bounds how many conversations one request may delete, restore or purge.
const maxBatch = 500

// submitDelete moves one conversation to the Trash.
func (a *app) submitDelete(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	return a.trash(c, []int64{id})
}

// submitDeleteMany moves the selected conversations (form field ids, repeated) to the Trash.
func (a *app) submitDeleteMany(c echo.Context) error {
	ids, err := formIDs(c)
	if err != nil {
		return err
	}
	return a.trash(c, ids)
}

// trash moves the viewer's conversations among ids to the Trash and answers with them gone from
// the sidebar and an Undo toast. When the open conversation went, the page moves to a new
// conversation (the toast comes along). None of them the viewer's is 404.
func (a *app) trash(c echo.Context, ids []int64) error {
	moved, err := a.store.TrashExchanges(c.Request().Context(), viewer(c).ID, ids)
	if err != nil {
		return err
	}
	if len(moved) == 0 {
		return db.ErrNotFound
	}
	a.stopAnswers(c.Request().Context(), moved)
	undo := undoOf(moved)
	open := openExchange(c)
	if slices.Contains(moved, open) {
		return redirect(c, "/chat/new?undo="+joinIDs(moved)+"&was="+strconv.FormatInt(open, 10))
	}
	if !isFragment(c) {
		return redirect(c, "/chat/new?undo="+joinIDs(moved))
	}
	return render(c, http.StatusOK, templ.Join(views.HistoryRemove(moved), views.UndoToast(undo, true)))
}

// submitRestore takes conversations out of the Trash (the toast's Undo) and answers with the
// sidebar's first page, so they are back in their places. When the restored conversations include
// the one that was open (form field open), it opens again; otherwise ?undo leaves the address.
func (a *app) submitRestore(c echo.Context) error {
	ids, err := formIDs(c)
	if err != nil {
		return err
	}
	restored, err := a.store.RestoreExchanges(c.Request().Context(), viewer(c).ID, ids)
	if err != nil {
		return err
	}
	if len(restored) == 0 {
		return db.ErrNotFound
	}
	if open, _ := strconv.ParseInt(c.FormValue("open"), 10, 64); slices.Contains(restored, open) {
		return redirect(c, sessionURL(open))
	}
	if !isFragment(c) {
		return c.Redirect(http.StatusSeeOther, sessionURL(restored[0]))
	}
	if cur, err := url.Parse(c.Request().Header.Get("HX-Current-URL")); err == nil && cur.Query().Has("undo") {
		c.Response().Header().Set("HX-Replace-Url", cur.Path)
	}
	items, more, err := a.historyPage(c, nil)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templ.Join(views.HistoryRefresh(items, more), views.UndoToast(views.Undo{}, true)))
}

// submitClearHistory moves every general conversation of the viewer to the Trash (the page asks
// for confirmation first) and opens a new conversation with an Undo toast, as a delete has; past
// maxBatch conversations (one restore's limit) the Trash page is the way back instead.
func (a *app) submitClearHistory(c echo.Context) error {
	ids, _, err := a.store.TrashGeneralHistory(c.Request().Context(), viewer(c).ID)
	if err != nil {
		return err
	}
	a.stopAnswers(c.Request().Context(), ids)
	if len(ids) == 0 || len(ids) > maxBatch {
		return redirect(c, "/chat/new")
	}
	return redirect(c, "/chat/new?undo="+joinIDs(ids))
}

// showTrash lists the viewer's trashed conversations, most recently deleted first, by keyset pages.
func (a *app) showTrash(c echo.Context) error {
	var after *db.TrashCursor
	if s := c.QueryParam("after"); s != "" {
		cur, err := parseCursor(s)
		if err != nil {
			return err
		}
		after = &db.TrashCursor{DeletedAt: cur.at, ID: cur.id}
	}
	rows, err := a.store.Trash(c.Request().Context(), viewer(c).ID, after, historyPageSize+1)
	if err != nil {
		return err
	}
	more := ""
	if len(rows) > historyPageSize {
		rows = rows[:historyPageSize]
		more = formatCursor(rows[len(rows)-1].DeletedAt, rows[len(rows)-1].ID)
	}
	items := make([]views.TrashItem, len(rows))
	for i, r := range rows {
		items[i] = views.TrashItem{ID: r.ID, Title: displayTitle(r.Title), DeletedAt: r.DeletedAt}
		if r.PageID != nil {
			items[i].Page = pageTitle(r.PageTitle)
		}
	}
	return render(c, http.StatusOK, views.TrashPage(page(c, "Trash", "chat"), items, more))
}

// submitTrashRestore restores conversations from the Trash view and shows the Trash again.
func (a *app) submitTrashRestore(c echo.Context) error {
	ids, err := formIDs(c)
	if err != nil {
		return err
	}
	restored, err := a.store.RestoreExchanges(c.Request().Context(), viewer(c).ID, ids)
	if err != nil {
		return err
	}
	if len(restored) == 0 {
		return db.ErrNotFound
	}
	return redirect(c, "/history/trash")
}

// submitRestoreAll takes every conversation out of the viewer's Trash and shows the Trash again.
func (a *app) submitRestoreAll(c echo.Context) error {
	if _, err := a.store.RestoreTrash(c.Request().Context(), viewer(c).ID); err != nil {
		return err
	}
	return redirect(c, "/history/trash")
}

// submitEmptyTrash deletes every conversation in the viewer's Trash forever (the page asks for
// confirmation first) and shows the empty Trash.
func (a *app) submitEmptyTrash(c echo.Context) error {
	if _, err := a.store.EmptyTrash(c.Request().Context(), viewer(c).ID); err != nil {
		return err
	}
	return redirect(c, "/history/trash")
}

// submitPurge deletes trashed conversations forever, with their messages and share links.
func (a *app) submitPurge(c echo.Context) error {
	ids, err := formIDs(c)
	if err != nil {
		return err
	}
	gone, err := a.store.PurgeExchanges(c.Request().Context(), viewer(c).ID, ids)
	if err != nil {
		return err
	}
	if len(gone) == 0 {
		return db.ErrNotFound
	}
	return redirect(c, "/history/trash")
}

// formIDs reads the repeated form field ids: 1 to maxBatch positive integers. A malformed id is
// 404 like a missing one; none at all is Invalid.
func formIDs(c echo.Context) ([]int64, error) {
	form, err := c.FormParams()
	if err != nil {
		return nil, fault.Field("ids", "The form could not be read.")
	}
	raw := form["ids"]
	if len(raw) == 0 {
		return nil, fault.Field("ids", "Select at least one conversation.")
	}
	if len(raw) > maxBatch {
		return nil, fault.Field("ids", fmt.Sprintf("Select at most %d conversations at once.", maxBatch))
	}
	ids := make([]int64, 0, len(raw))
	for _, s := range raw {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			return nil, db.ErrNotFound
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// undoOf is the toast offering to restore ids.
func undoOf(ids []int64) views.Undo {
	text := "Conversation moved to Trash."
	if len(ids) > 1 {
		text = fmt.Sprintf("%d conversations moved to Trash.", len(ids))
	}
	return views.Undo{IDs: ids, Text: text}
}

// undoParam reads /chat/new?undo=1,2 (set after the open conversation was deleted) back into ids.
func undoParam(s string) []int64 {
	var ids []int64
	for _, part := range strings.Split(s, ",") {
		if id, err := strconv.ParseInt(part, 10, 64); err == nil && id > 0 && len(ids) < maxBatch {
			ids = append(ids, id)
		}
	}
	return ids
}

func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ",")
}
