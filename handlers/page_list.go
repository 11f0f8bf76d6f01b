package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/fault"
	"parley/markdown"
	"parley/pages"
	"parley/views"
)

// pageListSize is how many pages the list shows at once; trashSize bounds the trash list.
const (
	pageListSize = 50
	trashSize    = 100
	maxTitle     = 300
)

// showPages lists the viewer's pages (keyset pages of pageListSize, ?after=<unix-nanos>_<id>) and the trash.
func (a *app) showPages(c echo.Context) error {
	ctx := c.Request().Context()
	u := viewer(c)
	var after *db.PageCursor
	if s := c.QueryParam("after"); s != "" {
		ns, id, ok := strings.Cut(s, "_")
		n, err1 := strconv.ParseInt(ns, 10, 64)
		i, err2 := strconv.ParseInt(id, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return fault.Field("after", "The list position is malformed.")
		}
		after = &db.PageCursor{UpdatedAt: time.Unix(0, n), ID: i}
	}
	rows, err := a.store.ListPages(ctx, u.ID, after, pageListSize+1)
	if err != nil {
		return err
	}
	trash, err := a.store.TrashedPages(ctx, u.ID, trashSize)
	if err != nil {
		return err
	}
	v := views.PagesList{Page: page(c, "Pages", "pages")}
	if len(rows) > pageListSize {
		last := rows[pageListSize-1]
		v.More = "/pages?after=" + url.QueryEscape(strconv.FormatInt(last.UpdatedAt.UnixNano(), 10)+"_"+strconv.FormatInt(last.ID, 10))
		rows = rows[:pageListSize]
	}
	for _, r := range rows {
		v.Pages = append(v.Pages, views.PageRow{ID: r.ID, Title: r.Title, UpdatedAt: r.UpdatedAt})
	}
	for _, r := range trash {
		v.Trash = append(v.Trash, views.PageRow{ID: r.ID, Title: r.Title, UpdatedAt: r.UpdatedAt, DeletedAt: *r.DeletedAt})
	}
	return render(c, http.StatusOK, views.PagesListView(v))
}

// showNewPage is the new-page form.
func (a *app) showNewPage(c echo.Context) error {
	return render(c, http.StatusOK, views.PageNewView(views.PageNew{Page: page(c, "New page", "pages")}))
}

// createPage stores a new page (title and optional content) and opens it in the editor. Bad input
// answers the form again with what was typed and the error. The content is stored with LF line
// endings (a browser posts a textarea's text with CRLF).
func (a *app) createPage(c echo.Context) error {
	title, content := strings.TrimSpace(c.FormValue("title")), markdown.NormalizeLineEndings(c.FormValue("content"), "\n")
	if err := checkPageInput(title, content); err != nil {
		v := views.PageNew{Page: page(c, "New page", "pages"), Title: title, Content: content, Error: fault.As(err).Message}
		return render(c, statusOf(fault.CodeOf(err)), views.PageNewView(v))
	}
	p, err := a.store.CreatePage(c.Request().Context(), viewer(c).ID, title, content)
	if err != nil {
		return err
	}
	return redirect(c, editURL(p.ID))
}

// checkPageInput validates a title (one line, at most maxTitle characters) and content.
func checkPageInput(title, content string) error {
	if !utf8.ValidString(title) || strings.ContainsAny(title, "\x00\r\n") {
		return fault.Field("title", "The title must be one line of text.")
	}
	if utf8.RuneCountInString(title) > maxTitle {
		return fault.Field("title", "The title is longer than 300 characters.")
	}
	return pages.CheckContent(content)
}

// trashPage moves a page to the trash (its chats and proposals go with it) and shows the list.
func (a *app) trashPage(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := a.store.TrashPage(c.Request().Context(), viewer(c).ID, id); err != nil {
		return err
	}
	return redirect(c, "/pages")
}

// restorePage brings a page back from the trash and opens it.
func (a *app) restorePage(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := a.store.RestorePage(c.Request().Context(), viewer(c).ID, id); err != nil {
		return err
	}
	return redirect(c, editURL(id))
}

// purgePage deletes a trashed page forever, with its revisions, chats and proposals.
func (a *app) purgePage(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := a.store.PurgePage(c.Request().Context(), viewer(c).ID, id); err != nil {
		return err
	}
	return redirect(c, "/pages")
}

func editURL(id int64) string { return "/pages/" + strconv.FormatInt(id, 10) + "/edit" }

func proposalURL(pageID, id int64) string {
	return "/pages/" + strconv.FormatInt(pageID, 10) + "/proposals/" + strconv.FormatInt(id, 10)
}
