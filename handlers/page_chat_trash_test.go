package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
)

// A trashed page's chats are out of reach through the general chat routes and out of search.
func TestTrashedPageChatsAre404AndUnsearchable(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Secret", methodsPage)
	eid, _ := askPage(t, app, c, id, "remove section Results zebrafinch")
	var userID int64
	if err := app.Store.DB.Get(&userID, `SELECT owner_id FROM pages WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	hits := func() int {
		h, err := app.Store.SearchWorkspace(context.Background(), userID, "zebrafinch", 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		return len(h)
	}
	if res := c.Get(fmt.Sprintf("/sessions/%d/chat", eid)); res.Status != http.StatusOK {
		t.Fatalf("a live page's chat: %d", res.Status)
	}
	if n := hits(); n != 1 {
		t.Fatalf("search finds the live page's chat %d times", n)
	}
	if res := c.PostForm(fmt.Sprintf("/pages/%d/trash", id), url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("trash: %d", res.Status)
	}
	if res := c.Get(fmt.Sprintf("/sessions/%d/chat", eid)); res.Status != http.StatusNotFound {
		t.Errorf("GET chat of a trashed page: %d", res.Status)
	}
	if res := htmxPost(c, fmt.Sprintf("/sessions/%d/messages", eid), url.Values{"query": {"hello"}, "idempotency_key": {"trash-1"}}); res.Status != http.StatusNotFound {
		t.Errorf("POST message to a trashed page's chat: %d", res.Status)
	}
	if res := c.Get(fmt.Sprintf("/sessions/%d/events", eid)); res.Status != http.StatusNotFound {
		t.Errorf("events of a trashed page's chat: %d", res.Status)
	}
	if n := hits(); n != 0 {
		t.Errorf("search finds a trashed page's chat %d times", n)
	}
}
