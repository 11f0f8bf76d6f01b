package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"parley/config"
)

// The sidebar search finds chats about the person's pages too: the hit names its page and opens
// that page's chat, in the editor, at the matching message. A trashed page's chats drop out.
func TestSearchFindsPageChatsLabelledWithTheirPage(t *testing.T) {
	app, c := signedIn(t)
	pageID := newPage(t, c, "Lab notes", methodsPage)
	exchangeID, _ := askPage(t, app, c, pageID, "append quasarwhistle to section Results")
	var questionID int64
	if err := app.Store.DB.Get(&questionID, `SELECT id FROM chat_message WHERE exchange_id = $1 AND role = 'user'`, exchangeID); err != nil {
		t.Fatal(err)
	}
	seedConversation(t, app, "ada@example.com", "General", time.Now(), "is quasarwhistle a bird?", "No.")

	d := doc(t, htmxGet(c, "/history/search?q=quasarwhistle").Body)
	if n := d.Find("[data-testid=search-hit]").Length(); n != 2 {
		t.Fatalf("%d hits, want the page chat and the general chat", n)
	}
	label := d.Find("[data-testid=search-hit-page]")
	if label.Length() != 1 || !strings.Contains(label.Text(), "Lab notes") {
		t.Fatalf("page label %q: want one naming the page", label.Text())
	}
	href, _ := label.Parent().Attr("href")
	want := fmt.Sprintf("/pages/%d/edit?chat=%d&m=%d#message-%d", pageID, exchangeID, questionID, questionID)
	if href != want {
		t.Fatalf("page chat hit opens %q, want %q", href, want)
	}
	res := c.Get(href)
	if res.Status != http.StatusOK {
		t.Fatalf("opening the hit: %d", res.Status)
	}
	if doc(t, res.Body).Find(fmt.Sprintf("#message-%d", questionID)).Length() != 1 {
		t.Fatal("the page's editor does not show the matching message")
	}

	if res := c.PostForm(fmt.Sprintf("/pages/%d/trash", pageID), url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("trash: %d", res.Status)
	}
	d = doc(t, htmxGet(c, "/history/search?q=quasarwhistle").Body)
	if d.Find("[data-testid=search-hit]").Length() != 1 || d.Find("[data-testid=search-hit-page]").Length() != 0 {
		t.Fatal("a trashed page's chat is still found")
	}
}

// A search that runs past PARLEY_SEARCH_TIMEOUT is stopped by PostgreSQL: the person is told to
// narrow it (503, never a 500), the connection goes back to the pool, and the next search works.
func TestSlowSearchIsStoppedWithAClearMessage(t *testing.T) {
	app, c := signedIn(t, func(cfg *config.Config) { cfg.SearchTimeout = 300 * time.Millisecond })
	seedConversation(t, app, "ada@example.com", "Birds", time.Now(), "where do kestrels nest?", "On ledges.")

	// Another transaction holds the conversations table, so the search waits until stopped.
	lock := app.Store.DB.MustBegin()
	lock.MustExec(`LOCK TABLE chat_exchange IN ACCESS EXCLUSIVE MODE`)
	started := time.Now()
	res := htmxGet(c, "/history/search?q=kestrels")
	took := time.Since(started)
	if res.Status != http.StatusServiceUnavailable {
		t.Fatalf("slow search: %d, want 503", res.Status)
	}
	if trigger := res.Header.Get("HX-Trigger"); !strings.Contains(trigger, "took too long") {
		t.Fatalf("slow search message %q", trigger)
	}
	if took > 5*time.Second {
		t.Fatalf("the search was stopped after %s, not at its timeout", took)
	}
	if page := c.Get("/history/search?q=kestrels"); page.Status != http.StatusServiceUnavailable || !strings.Contains(page.Body, "took too long") {
		t.Fatalf("slow search without htmx: %d", page.Status)
	}
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := doc(t, htmxGet(c, "/history/search?q=kestrels").Body).Find("[data-testid=search-hit]").Length(); n != 1 {
		t.Fatalf("after the slow one, a search finds %d hits", n)
	}
}
