package handlers_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Search snippets show a link's text, not its Markdown ("[Hello there!](/sessions/1/…)").
func TestSearchSnippetsShowLinkTextNotMarkdown(t *testing.T) {
	app, c := signedIn(t)
	seedConversation(t, app, "ada@example.com", "Links", time.Now(), "where was it", "See [Hello there!](/sessions/1/chat#message-5) and ![a logo](/static/img/favicon.svg) for the greeting.")
	res := htmxGet(c, "/history/search?q=greeting")
	hits := doc(t, res.Body).Find("[data-testid=search-hit]")
	if hits.Length() != 1 {
		t.Fatalf("%d hits:\n%s", hits.Length(), res.Body)
	}
	text := hits.Text()
	if strings.Contains(text, "](") || strings.Contains(text, "/sessions/1") || !strings.Contains(text, "Hello there!") || !strings.Contains(text, "a logo") {
		t.Errorf("snippet %q, want the links' text only", text)
	}
}

// A failed answer that wrote something offers a Copy of it next to Retry.
func TestFailedAnswerOffersACopyOfItsPartialText(t *testing.T) {
	app, c := signedIn(t)
	id, ids := seedConversation(t, app, "ada@example.com", "Broken", time.Now(), "q", "The first half of an answer")
	if _, err := app.Store.DB.Exec(`UPDATE chat_message SET status = 'failed' WHERE id = $1`, ids[1]); err != nil {
		t.Fatal(err)
	}
	d := doc(t, c.Get(fmt.Sprintf("/sessions/%d/chat", id)).Body)
	copyButton := d.Find(fmt.Sprintf(`#message-%d [data-testid=copy-partial]`, ids[1]))
	if copyButton.Length() != 1 || d.Find(fmt.Sprintf(`#message-%d [data-testid=retry]`, ids[1])).Length() != 1 {
		t.Fatal("the failed answer offers no Copy beside Retry")
	}
	if target, _ := copyButton.Attr("data-copy-message"); target != fmt.Sprintf("message-%d", ids[1]) {
		t.Errorf("Copy copies %q", target)
	}
}

// The share page says which day its snapshot is of, not only the time.
func TestSharePageDatesItsSnapshot(t *testing.T) {
	app, c := signedIn(t)
	id, _ := seedConversation(t, app, "ada@example.com", "Shared", time.Now(), "q", "a")
	c.PostForm(fmt.Sprintf("/sessions/%d/share", id), url.Values{})
	link, _ := doc(t, c.Get(fmt.Sprintf("/sessions/%d/share", id)).Body).Find("[data-testid=share-url]").Attr("value")
	link = link[strings.Index(link, "/share/"):]
	label := doc(t, app.Client(t).Get(link).Body).Find("time[data-local-datetime]").Text()
	if want := time.Now().UTC().Format("2006-01-02"); !strings.Contains(label, want) {
		t.Errorf("the snapshot is labelled %q, want its date %s", label, want)
	}
}

// Clear history offers Undo like a single delete: the new conversation it opens shows the toast,
// and Undo brings every cleared conversation back.
func TestClearHistoryOffersUndo(t *testing.T) {
	app, c := signedIn(t)
	var ids []int64
	for i := range 3 {
		id, _ := seedConversation(t, app, "ada@example.com", fmt.Sprint("Chat ", i), time.Now(), "q", "a")
		ids = append(ids, id)
	}
	res := htmxPost(c, "/history/clear", url.Values{})
	to := res.Header.Get("HX-Redirect")
	if !strings.HasPrefix(to, "/chat/new?undo=") {
		t.Fatalf("clear answers %d, HX-Redirect %q: want the new chat with undo ids", res.Status, to)
	}
	d := doc(t, c.Get(to).Body)
	vals, _ := d.Find("#undo-toast [data-testid=undo]").Attr("hx-vals")
	for _, id := range ids {
		if !strings.Contains(vals, fmt.Sprint(id)) {
			t.Fatalf("the Undo button's ids %q lack conversation %d", vals, id)
		}
	}
	form := url.Values{}
	for _, id := range ids {
		form.Add("ids", fmt.Sprint(id))
	}
	if res := htmxPost(c, "/history/restore", form); res.Status != 200 {
		t.Fatalf("undo: %d", res.Status)
	}
	if n := doc(t, c.Get("/chat/new").Body).Find("[data-history-item]").Length(); n != 3 {
		t.Fatalf("%d conversations back in the sidebar after Undo, want 3", n)
	}
}
