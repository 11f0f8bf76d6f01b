package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/fault"
	"parley/markdown"
	"parley/pages"
	"parley/views"
)

// revisionCoalesce is how long the newest `user` revision keeps absorbing autosaves: continuous
// typing makes at most one revision per window.
const revisionCoalesce = 5 * time.Minute

// showPage renders a page for reading (sanitised like chat answers).
func (a *app) showPage(c echo.Context) error {
	p, err := a.viewerPage(c)
	if err != nil {
		return err
	}
	v := views.PageShow{Page: page(c, pageTitle(p.Title), "pages"), ID: p.ID, Title: p.Title,
		HTML: markdown.RenderPage(p.Content), UpdatedAt: p.UpdatedAt}
	return render(c, http.StatusOK, views.PageShowView(v))
}

// showEditor is the split pane: the editor, and the chat panel resuming the viewer's latest chat
// about the page (or the one ?chat= names).
func (a *app) showEditor(c echo.Context) error {
	p, err := a.viewerPage(c)
	if err != nil {
		return err
	}
	return a.renderEditor(c, p, nil)
}

// renderEditor renders the editor of page p, its side panel on the chat, or on revisions when given.
func (a *app) renderEditor(c echo.Context, p db.Page, revisions *views.Revisions) error {
	ctx := c.Request().Context()
	u := viewer(c)
	chats, err := a.store.PageExchanges(ctx, u.ID, p.ID, pageChatListSize)
	if err != nil {
		return err
	}
	var exchangeID int64
	if s := c.QueryParam("chat"); s != "" {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return db.ErrNotFound
		}
		if _, err := a.store.PageExchange(ctx, u.ID, p.ID, id); err != nil {
			return err
		}
		exchangeID = id
	} else if len(chats) > 0 {
		exchangeID = chats[0].ID
	}
	pane, err := a.pageChatPane(c, p.ID, exchangeID)
	if err != nil {
		return err
	}
	v := views.PageEditor{Page: page(c, pageTitle(p.Title), "pages"), ID: p.ID, Title: p.Title, Content: p.Content,
		Version: p.Version, Chat: pane, History: pageChatItems(chats, p.ID, exchangeID), Revisions: revisions,
		SideWidth: u.PageSideWidth()}
	return render(c, http.StatusOK, views.PageEditorView(v))
}

// saveResponse is the body of a successful save: the stored version, and when the save was
// merged with a newer version (Merged), the title and content stored.
type saveResponse struct {
	Version   int       `json:"version"`
	UpdatedAt time.Time `json:"updated_at"`
	Merged    bool      `json:"merged,omitempty"`
	Title     string    `json:"title,omitempty"`
	Content   string    `json:"content,omitempty"`
}

// savePage is the editor's autosave (page.js posts title, content, the version the text was
// based on and its editor session). It answers {"version": n}. A save based on an older version
// is three-way merged with the stored one when it also carries the text of its base version
// (base, base_title) and the two changed different lines ({"merged": true} with the result);
// otherwise it answers 409 with the conflict panel (the stored version and the diff to the
// person's text) and changes nothing.
func (a *app) savePage(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	stored, err := a.store.UserPage(ctx, viewer(c).ID, id)
	if err != nil {
		return err
	}
	base, err := strconv.Atoi(c.FormValue("version"))
	if err != nil || base < 1 {
		return fault.Field("version", "The save is missing the version it was based on. Reload the page.")
	}
	// A browser posts a textarea's text with CRLF line endings (multipart form data): the text
	// keeps the stored page's style, so diffs show only what was typed and patches stay fresh.
	title := strings.TrimSpace(c.FormValue("title"))
	content := markdown.NormalizeLineEndings(c.FormValue("content"), markdown.LineEnding(stored.Content))
	if err := checkPageInput(title, content); err != nil {
		return err
	}
	in := db.PageSave{OwnerID: viewer(c).ID, PageID: id, BaseVersion: base, Title: title, Content: content,
		EditorSession: c.FormValue("editor"), Coalesce: revisionCoalesce}
	p, err := a.store.SavePage(ctx, in)
	var conflict *db.VersionConflict
	if errors.As(err, &conflict) && c.Request().PostForm.Has("base") {
		baseText := markdown.NormalizeLineEndings(c.FormValue("base"), markdown.LineEnding(stored.Content))
		if merged, ok := pages.Merge3(baseText, content, conflict.Current.Content); ok && checkPageInput(title, merged) == nil {
			in.BaseVersion, in.Content = conflict.Current.Version, merged
			in.Title = pages.MergeTitle(strings.TrimSpace(c.FormValue("base_title")), title, conflict.Current.Title)
			if p, err = a.store.SavePage(ctx, in); err == nil {
				a.pageChanged(p)
				return c.JSON(http.StatusOK, saveResponse{Version: p.Version, UpdatedAt: p.UpdatedAt, Merged: true,
					Title: p.Title, Content: p.Content})
			}
		}
	}
	if errors.As(err, &conflict) {
		cur := conflict.Current
		v := views.SaveConflict{PageID: cur.ID, ServerVersion: cur.Version, ServerContent: cur.Content, ServerTitle: cur.Title,
			Diff: diffView(markdown.LineDiff(cur.Content, content))}
		return render(c, http.StatusConflict, views.SaveConflictView(v))
	}
	if err != nil {
		return err
	}
	a.pageChanged(p)
	return c.JSON(http.StatusOK, saveResponse{Version: p.Version, UpdatedAt: p.UpdatedAt})
}

// previewPage renders the editor's text (not yet necessarily saved) as the page would show it.
func (a *app) previewPage(c echo.Context) error {
	if _, err := a.viewerPage(c); err != nil {
		return err
	}
	content := c.FormValue("content")
	if err := checkPageInput("", content); err != nil {
		return err
	}
	return render(c, http.StatusOK, views.PagePreview(markdown.RenderPage(content)))
}

// viewerPage reads the :id page of the viewer (live pages only; anything else is 404).
func (a *app) viewerPage(c echo.Context) (db.Page, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return db.Page{}, err
	}
	return a.store.UserPage(c.Request().Context(), viewer(c).ID, id)
}

// pageTitle is a page's title for the browser tab.
func pageTitle(t string) string {
	if t == "" {
		return "Untitled"
	}
	return t
}

// diffView turns a line diff into its view model.
func diffView(d markdown.Diff) views.DiffView {
	v := views.DiffView{Adds: d.Adds, Dels: d.Dels}
	for _, h := range d.Hunks {
		hv := views.HunkView{Header: h.Header}
		for _, l := range h.Lines {
			lv := views.DiffLineView{Kind: l.Kind.String(), Text: l.Content, NoEOL: l.EOL == ""}
			for _, w := range l.Spans {
				lv.Words = append(lv.Words, views.DiffWord{Text: w.Text, Changed: w.Changed})
			}
			hv.Lines = append(hv.Lines, lv)
		}
		v.Hunks = append(v.Hunks, hv)
	}
	return v
}
