package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"parley/config"
	"parley/handlers/handlerstest"
)

// seedConversation stores a general conversation of the user with email, of alternating user
// messages and complete answers (texts), updated at, and returns its id and its messages' ids.
func seedConversation(t *testing.T, app *handlerstest.App, email, title string, at time.Time, texts ...string) (int64, []int64) {
	t.Helper()
	var id int64
	err := app.Store.DB.Get(&id, `INSERT INTO chat_exchange (user_id, agent_id, title, created_at, updated_at)
		VALUES ((SELECT id FROM users WHERE email = $1), (SELECT id FROM agents WHERE identifier = 'auto'), $2, $3, $3) RETURNING id`, email, title, at)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	var parent *int64
	for i, text := range texts {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		var mid int64
		if err := app.Store.DB.Get(&mid, `INSERT INTO chat_message (exchange_id, parent_id, position, role, content, status, search, created_at)
			VALUES ($1, $2, $3, $4, $5, 'complete', to_tsvector('english', $5), $6) RETURNING id`, id, parent, i+1, role, text, at); err != nil {
			t.Fatal(err)
		}
		parent = &mid
		ids = append(ids, mid)
	}
	return id, ids
}

func TestHistorySidebarPagesByKeysetWithoutGapsOrRepeats(t *testing.T) {
	app, c := signedIn(t)
	base := time.Now().Add(-time.Hour)
	for i := range 35 {
		// Two pairs share a time, so the keyset's id tie-break matters.
		seedConversation(t, app, "ada@example.com", fmt.Sprintf("Topic %02d", i), base.Add(time.Duration(i/2)*time.Minute), "q", "a")
	}
	page := doc(t, c.Get("/chat/new").Body)
	first := page.Find("#history-list [data-testid=history-title]").Map(func(_ int, s *goquery.Selection) string { return s.Text() })
	if len(first) != 30 || first[0] != "Topic 34" {
		t.Fatalf("first page: %d items starting %v", len(first), first[:1])
	}
	more, ok := page.Find("[data-history-more]").Attr("hx-get")
	if !ok {
		t.Fatal("no sentinel for the next page")
	}
	next := doc(t, htmxGet(c, more).Body)
	rest := next.Find("[data-testid=history-title]").Map(func(_ int, s *goquery.Selection) string { return s.Text() })
	if len(rest) != 5 || next.Find("[data-history-more]").Length() != 0 {
		t.Fatalf("second page: %v (sentinel %d)", rest, next.Find("[data-history-more]").Length())
	}
	seen := map[string]bool{}
	for _, s := range append(first, rest...) {
		if seen[s] {
			t.Fatalf("%s listed twice", s)
		}
		seen[s] = true
	}
	if res := htmxGet(c, "/history?after=junk"); res.Status != http.StatusBadRequest {
		t.Fatalf("malformed cursor: %d", res.Status)
	}
}

func TestRenameInPlace(t *testing.T) {
	app, c := signedIn(t)
	id, _ := seedConversation(t, app, "ada@example.com", "Old title", time.Now(), "q", "a")
	path := fmt.Sprintf("/sessions/%d/rename", id)
	if form := htmxGet(c, path); !strings.Contains(form.Body, `value="Old title"`) {
		t.Fatalf("rename form: %d %s", form.Status, form.Body)
	}
	res := htmxPost(c, path, url.Values{"title": {"  New   title "}})
	if res.Status != http.StatusOK || !strings.Contains(res.Body, ">New title<") {
		t.Fatalf("rename: %d %s", res.Status, res.Body)
	}
	for _, bad := range []string{"", "   ", strings.Repeat("x", 201), "bad \xff"} {
		if res := htmxPost(c, path, url.Values{"title": {bad}}); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "role=\"alert\"") {
			t.Fatalf("title %q: %d", bad, res.Status)
		}
	}
	var title string
	_ = app.Store.DB.Get(&title, `SELECT title FROM chat_exchange WHERE id = $1`, id)
	if title != "New title" {
		t.Fatalf("stored title %q", title)
	}
}

func TestDeleteUndoTrashRestorePurgeAndClear(t *testing.T) {
	app, c := signedIn(t)
	a, _ := seedConversation(t, app, "ada@example.com", "Alpha", time.Now().Add(-2*time.Minute), "q", "a")
	b, _ := seedConversation(t, app, "ada@example.com", "Bravo", time.Now().Add(-time.Minute), "q", "a")

	res := htmxPost(c, fmt.Sprintf("/sessions/%d/delete", a), url.Values{})
	if res.Status != http.StatusOK || !strings.Contains(res.Body, `data-testid="undo"`) || !strings.Contains(res.Body, fmt.Sprintf(`id="history-%d" hx-swap-oob="delete"`, a)) {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	if got := c.Get(fmt.Sprintf("/sessions/%d/chat", a)); got.Status != http.StatusNotFound {
		t.Fatalf("a trashed conversation opens: %d", got.Status)
	}
	if !strings.Contains(c.Get("/history/trash").Body, "Alpha") {
		t.Fatal("the Trash does not list the deleted conversation")
	}
	res = htmxPost(c, "/history/restore", url.Values{"ids": {fmt.Sprint(a)}})
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "Alpha") {
		t.Fatalf("undo: %d %s", res.Status, res.Body)
	}
	if got := c.Get(fmt.Sprintf("/sessions/%d/chat", a)); got.Status != http.StatusOK {
		t.Fatalf("restored conversation: %d", got.Status)
	}

	// Deleting the open conversation starts a new one, with the Undo toast.
	req, _ := http.NewRequest(http.MethodPost, c.URL(fmt.Sprintf("/sessions/%d/delete", b)), strings.NewReader(url.Values{"_csrf": {c.CSRFToken()}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Current-URL", c.URL(fmt.Sprintf("/sessions/%d/chat", b)))
	res = c.Do(req)
	if to := res.Header.Get("HX-Redirect"); to != fmt.Sprintf("/chat/new?undo=%d&was=%d", b, b) {
		t.Fatalf("deleting the open conversation redirects to %q", to)
	}
	if !strings.Contains(c.Get(res.Header.Get("HX-Redirect")).Body, `data-testid="undo"`) {
		t.Fatal("the new conversation does not offer Undo")
	}

	// Select mode: several at once; then delete forever from the Trash.
	if res := htmxPost(c, "/history/delete", url.Values{"ids": {fmt.Sprint(a), fmt.Sprint(b)}}); res.Status != http.StatusOK {
		t.Fatalf("delete many: %d", res.Status)
	}
	if res := c.PostForm("/history/trash/purge", url.Values{"ids": {fmt.Sprint(a)}}); res.Status != http.StatusSeeOther {
		t.Fatalf("purge: %d", res.Status)
	}
	if n := count(t, app, fmt.Sprintf("chat_exchange WHERE id = %d", a)); n != 0 {
		t.Fatal("a purged conversation is still stored")
	}
	if res := c.PostForm("/history/trash/restore", url.Values{"ids": {fmt.Sprint(b)}}); res.Status != http.StatusSeeOther {
		t.Fatalf("restore from the Trash: %d", res.Status)
	}
	if res := c.PostForm("/history/restore", url.Values{"ids": {"abc"}}); res.Status != http.StatusNotFound {
		t.Fatalf("malformed id: %d", res.Status)
	}

	// Clear history moves every general conversation to the Trash; page chats stay.
	seedConversation(t, app, "ada@example.com", "Charlie", time.Now(), "q", "a")
	if res := htmxPost(c, "/history/clear", url.Values{}); !strings.HasPrefix(res.Header.Get("HX-Redirect"), "/chat/new") {
		t.Fatalf("clear: %d %v", res.Status, res.Header)
	}
	if n := count(t, app, "chat_exchange WHERE deleted_at IS NULL"); n != 0 {
		t.Fatalf("%d conversations left after Clear history", n)
	}
	if strings.Contains(c.Get("/chat/new").Body, "data-history-item") {
		t.Fatal("the sidebar still lists conversations")
	}
}

func TestSearchFindsTitlesAndMessagesWithHighlights(t *testing.T) {
	app, c := signedIn(t)
	long := strings.Repeat("filler words about nothing much. ", 40) + "The secret ingredient is cardamom. " + strings.Repeat("more filler text here. ", 40)
	id, ids := seedConversation(t, app, "ada@example.com", "Baking notes", time.Now().Add(-48*time.Hour), "what about bread?", long, "thanks", "you're welcome")
	titled, _ := seedConversation(t, app, "ada@example.com", "Cardamom buns", time.Now(), "hello", "hi")
	app.Client(t).SignUp("bob@example.com", "correct horse")
	seedConversation(t, app, "bob@example.com", "Bob's cardamom", time.Now(), "cardamom", "cardamom")

	res := htmxGet(c, "/history/search?q=cardamom")
	d := doc(t, res.Body)
	hits := d.Find("[data-testid=search-hit]")
	if hits.Length() != 2 {
		t.Fatalf("%d hits, want Ada's two:\n%s", hits.Length(), res.Body)
	}
	if href, _ := hits.Eq(0).Attr("href"); !strings.HasPrefix(href, fmt.Sprintf("/sessions/%d/chat", titled)) {
		t.Fatalf("the title match is not first: %s", href)
	}
	want := fmt.Sprintf("/sessions/%d/chat?m=%d#message-%d", id, ids[1], ids[1])
	if href, _ := hits.Eq(1).Attr("href"); href != want {
		t.Fatalf("hit opens %s, want %s", href, want)
	}
	if mark := hits.Eq(1).Find("mark").Text(); !strings.EqualFold(mark, "cardamom") {
		t.Fatalf("snippet marks %q", mark)
	}
	if res := htmxGet(c, "/history/search?q=%22"); res.Status != http.StatusOK || !strings.Contains(res.Body, "Nothing found") {
		t.Fatalf("a query of punctuation: %d %s", res.Status, res.Body)
	}
	// Equal relevance: the more recent conversation first.
	older, _ := seedConversation(t, app, "ada@example.com", "Tea one", time.Now().Add(-5*time.Hour), "masala chai?", "spiced tea")
	newer, _ := seedConversation(t, app, "ada@example.com", "Tea two", time.Now().Add(-time.Hour), "masala chai?", "spiced tea")
	tea := doc(t, htmxGet(c, "/history/search?q=masala").Body).Find("[data-testid=search-hit]")
	first, _ := tea.Eq(0).Attr("href")
	second, _ := tea.Eq(1).Attr("href")
	if !strings.HasPrefix(first, fmt.Sprintf("/sessions/%d/", newer)) || !strings.HasPrefix(second, fmt.Sprintf("/sessions/%d/", older)) {
		t.Fatalf("ties not by recency: %s, %s", first, second)
	}
	// Opening the hit renders the matching message and marks it for scrolling.
	page := c.Get(want)
	if !strings.Contains(page.Body, fmt.Sprintf(`data-focus-message="message-%d"`, ids[1])) || !strings.Contains(page.Body, "cardamom") {
		t.Fatalf("the opened conversation does not focus the message")
	}
}

func TestLongConversationOpensWithLatestMessagesAndLoadsOlder(t *testing.T) {
	app, c := signedIn(t)
	texts := make([]string, 100)
	for i := range texts {
		texts[i] = fmt.Sprintf("message number %d", i+1)
	}
	id, ids := seedConversation(t, app, "ada@example.com", "Long", time.Now(), texts...)
	page := doc(t, c.Get(fmt.Sprintf("/sessions/%d/chat", id)).Body)
	if n := page.Find("#message-list .msg").Length(); n != 40 {
		t.Fatalf("%d messages rendered, want the latest 40", n)
	}
	older, _ := page.Find("#older-messages").Attr("hx-get")
	if older != fmt.Sprintf("/sessions/%d/messages?before=61", id) {
		t.Fatalf("older sentinel: %q", older)
	}
	more := doc(t, htmxGet(c, older).Body)
	if n := more.Find(".msg").Length(); n != 40 || more.Find("#older-messages").Length() != 1 {
		t.Fatalf("older window: %d messages", n)
	}
	last := doc(t, htmxGet(c, fmt.Sprintf("/sessions/%d/messages?before=21", id)).Body)
	if n := last.Find(".msg").Length(); n != 20 || last.Find("#older-messages").Length() != 0 {
		t.Fatalf("oldest window: %d messages", n)
	}
	// Opened at an old message (a search result): everything from just before it is rendered.
	at := doc(t, c.Get(fmt.Sprintf("/sessions/%d/chat?m=%d", id, ids[9])).Body)
	if at.Find(fmt.Sprintf("#message-%d", ids[9])).Length() != 1 {
		t.Fatal("the focused message is not rendered")
	}
	if src, _ := at.Find("#chat-stream").Attr("sse-connect"); src != fmt.Sprintf("/sessions/%d/events?from=8", id) {
		t.Fatalf("the stream starts at %q", src)
	}
}

// With a model configured, the first answer is followed by a better title from the model; the
// answer does not wait for it.
func TestFirstAnswerGetsAModelTitle(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(n int64) handlerstest.Reply {
		if n == 1 {
			return handlerstest.Reply{Deltas: []string{"Knead the dough ", "for ten minutes."}}
		}
		return handlerstest.Reply{Deltas: []string{"\"Kneading ", "Bread Dough.\"\n"}}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up), func(cfg *config.Config) { cfg.ImproveTitles = true })
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"how   long should I knead bread dough by hand?"}, "idempotency_key": {"k1"}}))
	waitAnswer(t, app, id)
	deadline := time.Now().Add(10 * time.Second)
	var title string
	for time.Now().Before(deadline) {
		_ = app.Store.DB.Get(&title, `SELECT title FROM chat_exchange WHERE id = $1`, id)
		if title == "Kneading Bread Dough" {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("title %q, want the model's", title)
}
