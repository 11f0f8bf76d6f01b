package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
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

// A deleted page chat is in the Trash, named with its page, and can be restored or deleted forever
// from there like a general conversation; while its page is in the trash it is not listed.
func TestDeletedPageChatsAreInTheTrashToRestoreOrPurge(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Field notes", methodsPage)
	eid, _ := askPage(t, app, c, id, "remove section Results")
	del := func() {
		t.Helper()
		if res := htmxPost(c, fmt.Sprintf("/pages/%d/chats/delete", id), url.Values{"id": {fmt.Sprint(eid)}}); res.Status != http.StatusOK {
			t.Fatalf("delete: %d", res.Status)
		}
	}
	del()
	trash := c.Get("/history/trash")
	if !strings.Contains(trash.Body, "chat about the page “Field notes”") || strings.Count(trash.Body, `data-testid="trash-item"`) != 1 {
		t.Fatalf("the Trash does not list the page chat: %s", trash.Body)
	}
	if res := c.PostForm("/history/trash/restore", url.Values{"ids": {fmt.Sprint(eid)}}); res.Status != http.StatusSeeOther {
		t.Fatalf("restore: %d", res.Status)
	}
	if r := htmxGet(c, fmt.Sprintf("/pages/%d/chats/%d", id, eid)); r.Status != http.StatusOK {
		t.Fatalf("the restored chat: %d", r.Status)
	}
	del()
	if res := c.PostForm(fmt.Sprintf("/pages/%d/trash", id), url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("trash the page: %d", res.Status)
	}
	if trash := c.Get("/history/trash"); strings.Contains(trash.Body, `data-testid="trash-item"`) {
		t.Fatal("a trashed page's chat is listed in the Trash")
	}
	if res := c.PostForm(fmt.Sprintf("/pages/%d/restore", id), url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("restore the page: %d", res.Status)
	}
	if res := c.PostForm("/history/trash/purge", url.Values{"ids": {fmt.Sprint(eid)}}); res.Status != http.StatusSeeOther {
		t.Fatalf("purge: %d", res.Status)
	}
	var left int
	if err := app.Store.DB.Get(&left, `SELECT count(*) FROM chat_exchange WHERE id = $1`, eid); err != nil || left != 0 {
		t.Fatalf("the purged chat is still stored (%d, %v)", left, err)
	}
}
