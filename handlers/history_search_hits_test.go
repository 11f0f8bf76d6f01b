package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A search hit inside an older version opens the conversation on that version, at the match.
func TestSearchHitInAnOlderVersionOpensThatVersion(t *testing.T) {
	app, c := signedIn(t)
	id, ids := seedConversation(t, app, "ada@example.com", "Spices", time.Now(), "which spice?", "Try cardamom pods.")
	var newer int64
	if err := app.Store.DB.Get(&newer, `INSERT INTO chat_message (exchange_id, parent_id, position, role, content, status, search)
		VALUES ($1, $2, 3, 'assistant', 'Try saffron.', 'complete', to_tsvector('english', 'Try saffron.')) RETURNING id`, id, ids[0]); err != nil {
		t.Fatal(err)
	}
	app.Store.DB.MustExec(`UPDATE chat_exchange SET leaf_message_id = $2 WHERE id = $1`, id, newer)
	hit, ok := doc(t, htmxGet(c, "/history/search?q=cardamom").Body).Find("[data-testid=search-hit]").Attr("href")
	if !ok {
		t.Fatal("no search hit")
	}
	res := c.Get(hit)
	if res.Status != http.StatusOK {
		t.Fatalf("open hit: %d", res.Status)
	}
	d := doc(t, res.Body)
	if d.Find(fmt.Sprintf("#message-%d", ids[1])).Length() != 1 || strings.Contains(d.Find("#chat-pane").Text(), "saffron") {
		t.Fatalf("the hit %s does not open on the version holding the match", hit)
	}
}

// A search with more hits than it lists says so.
func TestSearchSaysWhenThereAreMoreHits(t *testing.T) {
	app, c := signedIn(t)
	for i := range 31 {
		seedConversation(t, app, "ada@example.com", fmt.Sprintf("Note %d", i), time.Now(), "about quinces", "quinces indeed")
	}
	d := doc(t, htmxGet(c, "/history/search?q=quinces").Body)
	if n := d.Find("[data-testid=search-hit]").Length(); n != 30 {
		t.Fatalf("%d hits listed, want 30", n)
	}
	if !strings.Contains(d.Find("[data-testid=search-results]").Text(), "more than 30") {
		t.Fatalf("no word of more hits: %s", d.Find("[data-testid=search-results] p").Text())
	}
}
