package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"parley/handlers/handlerstest"
)

// The sidebar counts the turns on the version on screen, not every version stored.
func TestSidebarCountsTheTurnsOnTheShownVersion(t *testing.T) {
	app, c := signedIn(t)
	id, _ := seedConversation(t, app, "ada@example.com", "Edited", time.Now(), "first try", "answer one", "follow up", "answer two")
	var q2, a2 int64
	_ = app.Store.DB.Get(&q2, `INSERT INTO chat_message (exchange_id, position, role, content, status) VALUES ($1, 5, 'user', 'second try', 'complete') RETURNING id`, id)
	_ = app.Store.DB.Get(&a2, `INSERT INTO chat_message (exchange_id, parent_id, position, role, content, status) VALUES ($1, $2, 6, 'assistant', 'answer three', 'complete') RETURNING id`, id, q2)
	app.Store.DB.MustExec(`UPDATE chat_exchange SET leaf_message_id = $2 WHERE id = $1`, id, a2)
	item := doc(t, c.Get("/chat/new").Body).Find(fmt.Sprintf("#history-%d", id)).Text()
	if !strings.Contains(item, "1 turn") || strings.Contains(item, "turns") {
		t.Fatalf("sidebar item %q, want 1 turn", item)
	}
	// Never branched: every user message counts.
	other, _ := seedConversation(t, app, "ada@example.com", "Plain", time.Now(), "a", "b", "c", "d")
	if item := doc(t, c.Get("/chat/new").Body).Find(fmt.Sprintf("#history-%d", other)).Text(); !strings.Contains(item, "2 turns") {
		t.Fatalf("unbranched item %q, want 2 turns", item)
	}
}

// htmxPostFrom posts form as htmx does from the page at current.
func htmxPostFrom(c *handlerstest.Client, current, path string, form url.Values) handlerstest.Response {
	form.Set("_csrf", c.CSRFToken())
	req, _ := http.NewRequest(http.MethodPost, c.URL(path), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Current-URL", c.URL(current))
	return c.Do(req)
}

// The Undo toast offers only conversations really in the viewer's Trash, and Undo after deleting
// the open conversation goes back to it.
func TestUndoToastOnlyForTrashedConversationsAndReturnsToTheOpenOne(t *testing.T) {
	app, c := signedIn(t)
	bob := app.Client(t)
	bob.SignUp("bob@example.com", "correct horse")
	bobs, _ := seedConversation(t, app, "bob@example.com", "Bob's", time.Now(), "q", "a")
	app.Store.DB.MustExec(`UPDATE chat_exchange SET deleted_at = now() WHERE id = $1`, bobs)
	live, _ := seedConversation(t, app, "ada@example.com", "Live", time.Now(), "q", "a")
	if d := doc(t, c.Get(fmt.Sprintf("/chat/new?undo=5,6,7,%d,%d", bobs, live)).Body); d.Find("[data-testid=undo]").Length() != 0 {
		t.Fatal("a made-up ?undo shows the Undo toast")
	}

	id, _ := seedConversation(t, app, "ada@example.com", "Open one", time.Now(), "q", "a")
	res := htmxPostFrom(c, fmt.Sprintf("/sessions/%d/chat", id), fmt.Sprintf("/sessions/%d/delete", id), url.Values{})
	next := res.Header.Get("HX-Redirect")
	if next == "" {
		t.Fatalf("delete of the open conversation: %d %v", res.Status, res.Header)
	}
	undo, ok := doc(t, c.Get(next).Body).Find("[data-testid=undo]").Attr("hx-vals")
	if !ok {
		t.Fatal("no Undo after deleting the open conversation")
	}
	var vals map[string]any
	if err := json.Unmarshal([]byte(undo), &vals); err != nil {
		t.Fatal(err)
	}
	form := url.Values{}
	for k, v := range vals {
		switch v := v.(type) {
		case string:
			form.Set(k, v)
		case []any:
			for _, x := range v {
				form.Add(k, fmt.Sprint(x))
			}
		}
	}
	res = htmxPostFrom(c, next, "/history/restore", form)
	if got := res.Header.Get("HX-Redirect"); got != fmt.Sprintf("/sessions/%d/chat", id) {
		t.Fatalf("Undo goes to %q, want the restored conversation (%d %v)", got, res.Status, res.Header)
	}
}

// Restore all and Empty trash act on every trashed conversation of the viewer, past the 500-id
// limit of the batch routes, and on no one else's.
func TestTrashRestoreAllAndEmptyTrash(t *testing.T) {
	app, c := signedIn(t)
	bob := app.Client(t)
	bob.SignUp("bob@example.com", "correct horse")
	bobs, _ := seedConversation(t, app, "bob@example.com", "Bob's", time.Now(), "q", "a")
	live, _ := seedConversation(t, app, "ada@example.com", "Live", time.Now(), "q", "a")
	app.Store.DB.MustExec(`UPDATE chat_exchange SET deleted_at = now() WHERE id = $1`, bobs)
	app.Store.DB.MustExec(`INSERT INTO chat_exchange (user_id, title, deleted_at)
		SELECT (SELECT id FROM users WHERE email = 'ada@example.com'), 'old ' || n, now() - n * interval '1 second' FROM generate_series(1, 620) n`)
	trashed := func() int {
		return count(t, app, "chat_exchange WHERE deleted_at IS NOT NULL AND user_id = (SELECT id FROM users WHERE email = 'ada@example.com')")
	}
	page := doc(t, c.Get("/history/trash").Body)
	if page.Find("[data-testid=restore-all]").Length() != 1 || page.Find("[data-testid=empty-trash]").Length() != 1 {
		t.Fatal("the Trash offers no Restore all or Empty trash")
	}
	if confirm, _ := page.Find("[data-testid=empty-trash]").Closest("form").Attr("hx-confirm"); confirm == "" {
		t.Fatal("Empty trash is not confirmed")
	}
	if res := c.PostForm("/history/trash/restore-all", nil); res.Status != http.StatusSeeOther || trashed() != 0 {
		t.Fatalf("restore all: %d, %d still trashed", res.Status, trashed())
	}
	app.Store.DB.MustExec(`UPDATE chat_exchange SET deleted_at = now() WHERE title LIKE 'old %'`)
	if res := c.PostForm("/history/trash/empty", nil); res.Status != http.StatusSeeOther || trashed() != 0 {
		t.Fatalf("empty trash: %d, %d still trashed", res.Status, trashed())
	}
	if n := count(t, app, fmt.Sprintf("chat_exchange WHERE id IN (%d, %d)", bobs, live)); n != 2 {
		t.Fatal("Empty trash deleted a live conversation or someone else's")
	}
	if n := count(t, app, fmt.Sprintf("chat_exchange WHERE id = %d AND deleted_at IS NOT NULL", bobs)); n != 1 {
		t.Fatal("Restore all restored someone else's conversation")
	}
}

// Titles: only invisible characters is empty, bidi controls are stripped, a refused title is echoed
// as valid text, and renaming the open conversation renames the browser tab.
func TestRenameRefusesInvisibleTitlesStripsBidiAndEchoesCleanText(t *testing.T) {
	app, c := signedIn(t)
	id, _ := seedConversation(t, app, "ada@example.com", "Old", time.Now(), "q", "a")
	path := fmt.Sprintf("/sessions/%d/rename", id)
	for _, invisible := range []string{"\u200b", "\u200b \ufeff\u2060", "\u202e\u2066"} {
		if res := htmxPost(c, path, url.Values{"title": {invisible}}); res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("title %q: %d", invisible, res.Status)
		}
	}
	res := htmxPost(c, path, url.Values{"title": {"gpj.\u202eexe report\u2069"}})
	var title string
	_ = app.Store.DB.Get(&title, `SELECT title FROM chat_exchange WHERE id = $1`, id)
	if res.Status != http.StatusOK || title != "gpj.exe report" {
		t.Fatalf("bidi title: %d, stored %q", res.Status, title)
	}
	res = htmxPost(c, path, url.Values{"title": {"bad \xff\x00 bytes"}})
	value, _ := doc(t, res.Body).Find("input[name=title]").Attr("value")
	if res.Status != http.StatusUnprocessableEntity || strings.ContainsRune(value, 0) || strings.Contains(res.Body, "\x00") || strings.Contains(res.Body, "\xff") {
		t.Fatalf("refused title echoed as %q (%d)", value, res.Status)
	}
	res = htmxPostFrom(c, fmt.Sprintf("/sessions/%d/chat", id), path, url.Values{"title": {"Tab title"}})
	if !strings.Contains(res.Body, "<title>Tab title · Parley</title>") {
		t.Fatalf("renaming the open conversation leaves the tab's title: %s", res.Body)
	}
	if res := htmxPost(c, path, url.Values{"title": {"Elsewhere"}}); strings.Contains(res.Body, "<title>") {
		t.Fatal("renaming from another page changes that page's title")
	}
}
