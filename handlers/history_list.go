package handlers

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/fault"
	"parley/views"
)

// showHistoryPage answers the sidebar's infinite scroll: the keyset page after the cursor
// ("<updated_at µs>-<id>", from the previous page's sentinel), with its own sentinel when more follow.
func (a *app) showHistoryPage(c echo.Context) error {
	after, err := parseCursor(c.QueryParam("after"))
	if err != nil {
		return err
	}
	items, more, err := a.historyPage(c, &db.HistoryCursor{UpdatedAt: after.at, ID: after.id})
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.HistoryList(items, more, false))
}

// historyPage reads one sidebar page (after nil: the first) as view models, the open conversation
// (from the URL of the page asking) highlighted, and the cursor of the next page ("" at the end).
func (a *app) historyPage(c echo.Context, after *db.HistoryCursor) ([]views.HistoryItem, string, error) {
	rows, err := a.store.GeneralHistory(c.Request().Context(), viewer(c).ID, after, historyPageSize+1)
	if err != nil {
		return nil, "", err
	}
	more := ""
	if len(rows) > historyPageSize {
		rows = rows[:historyPageSize]
		last := rows[len(rows)-1]
		more = formatCursor(last.UpdatedAt, last.ID)
	}
	open := openExchange(c)
	items := make([]views.HistoryItem, len(rows))
	for i, r := range rows {
		items[i] = historyItemView(r)
		items[i].Active = r.ID == open
	}
	return items, more, nil
}

func historyItemView(r db.ExchangeSummary) views.HistoryItem {
	return views.HistoryItem{ID: r.ID, Title: displayTitle(r.Title), Avatar: r.AgentAvatar, Turns: r.Turns, At: r.UpdatedAt}
}

// displayTitle is a conversation's title, or a stand-in for an untitled one.
func displayTitle(t string) string {
	if strings.TrimSpace(t) == "" {
		return "Untitled conversation"
	}
	return t
}

var sessionPath = regexp.MustCompile(`^/sessions/(\d+)/chat$`)

// openExchange is the conversation open in the page that sent this request (htmx's
// HX-Current-URL, or the request's own path), 0 when none.
func openExchange(c echo.Context) int64 {
	path := c.Request().URL.Path
	if cur := c.Request().Header.Get("HX-Current-URL"); cur != "" {
		if u, err := url.Parse(cur); err == nil {
			path = u.Path
		}
	}
	if m := sessionPath.FindStringSubmatch(path); m != nil {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		return id
	}
	return 0
}

type cursor struct {
	at time.Time
	id int64
}

// formatCursor encodes a keyset position as "<unix µs>-<id>" (PostgreSQL keeps microseconds).
func formatCursor(at time.Time, id int64) string {
	return fmt.Sprintf("%d-%d", at.UnixMicro(), id)
}

// parseCursor reads formatCursor's output; anything else is Invalid.
func parseCursor(s string) (cursor, error) {
	micros, id, ok := strings.Cut(s, "-")
	us, err1 := strconv.ParseInt(micros, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if !ok || err1 != nil || err2 != nil || n <= 0 {
		return cursor{}, fault.Field("after", "The page position is malformed. Reload the page.")
	}
	return cursor{at: time.UnixMicro(us).UTC(), id: n}, nil
}

// maxTitleChars bounds a conversation title, in characters.
const maxTitleChars = 200

// showRenameForm replaces a sidebar item with its rename form.
func (a *app) showRenameForm(c echo.Context) error {
	item, err := a.historyItem(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.RenameForm(item, ""))
}

// showHistoryItem renders one sidebar item (a cancelled rename).
func (a *app) showHistoryItem(c echo.Context) error {
	item, err := a.historyItem(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.HistoryItemView(item))
}

// submitRename sets a conversation's title and answers with its sidebar item; a bad title keeps
// the form open with the reason. Full posts (no JavaScript) go back to the conversation.
func (a *app) submitRename(c echo.Context) error {
	item, err := a.historyItem(c)
	if err != nil {
		return err
	}
	raw := c.FormValue("title")
	title, problem := cleanTitle(raw)
	if problem != "" {
		item.Title = strings.ReplaceAll(strings.ToValidUTF8(raw, "\uFFFD"), "\x00", "")
		return render(c, http.StatusUnprocessableEntity, views.RenameForm(item, problem))
	}
	if _, err := a.store.RenameExchange(c.Request().Context(), viewer(c).ID, item.ID, title); err != nil {
		return err
	}
	if !isFragment(c) {
		return c.Redirect(http.StatusSeeOther, sessionURL(item.ID))
	}
	item.Title = title
	if item.Active {
		return render(c, http.StatusOK, templ.Join(views.DocumentTitle(title), views.HistoryItemView(item)))
	}
	return render(c, http.StatusOK, views.HistoryItemView(item))
}

// cleanTitle is a typed title as stored (bidi controls removed, runs of white space one space) and
// why it cannot be stored ("" when it can): invalid text, more than one line (as page titles),
// nothing visible, or too long.
func cleanTitle(raw string) (string, string) {
	if !utf8.ValidString(raw) || strings.ContainsRune(raw, 0) {
		return "", "The title contains bytes that are not valid text."
	}
	if strings.ContainsAny(raw, "\r\n\u2028\u2029\u0085") {
		return "", "The title must be one line of text."
	}
	t := strings.Join(strings.Fields(strings.Map(dropBidi, raw)), " ")
	switch {
	case strings.IndexFunc(t, visible) < 0:
		return "", "Type a title."
	case utf8.RuneCountInString(t) > maxTitleChars:
		return "", fmt.Sprintf("A title has at most %d characters.", maxTitleChars)
	}
	return t, ""
}

// dropBidi removes the bidirectional embedding, override and isolate controls (U+202A–202E,
// U+2066–2069), which can make a title read differently from what it is.
func dropBidi(r rune) rune {
	if (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) {
		return -1
	}
	return r
}

// visible is true for a rune that shows: not white space and not a format character (U+200B…).
func visible(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r)
}

// historyItem reads the :id conversation of the viewer as a sidebar item; someone else's is 404.
func (a *app) historyItem(c echo.Context) (views.HistoryItem, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return views.HistoryItem{}, err
	}
	s, err := a.store.ExchangeSummaryByID(c.Request().Context(), viewer(c).ID, id)
	if err != nil {
		return views.HistoryItem{}, err
	}
	item := historyItemView(s)
	item.Active = id == openExchange(c)
	return item, nil
}

// requireOwner guards routes that address one of the viewer's conversations: a signed-out client
// gets the same 404 as a stranger (no redirect that would confirm the address means something).
func (a *app) requireOwner(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if viewer(c) == nil {
			return a.notFound(c)
		}
		return next(c)
	}
}

// requireChatterOwner is requireOwner for routes guests use too (their conversations are scoped to
// their guest session by chatOwner).
func (a *app) requireChatterOwner(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if viewer(c) != nil {
			return next(c)
		}
		id, err := a.loadGuest(c)
		if err != nil {
			return err
		}
		if id == 0 {
			return a.notFound(c)
		}
		return next(c)
	}
}

// notFound answers a missing (or someone else's) conversation: the "Conversation not found" page
// for page loads, the generic error otherwise.
func (a *app) notFound(c echo.Context) error {
	if c.Request().Method == http.MethodGet && !isFragment(c) && !isAPI(c) {
		return render(c, http.StatusNotFound, views.ConversationNotFoundPage(page(c, "Conversation not found", "chat")))
	}
	return db.ErrNotFound
}
