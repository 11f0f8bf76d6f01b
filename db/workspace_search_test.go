package db_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"parley/db"
	"parley/db/dbtest"
)

// For a word in more of a person's messages than a search ranks, the search tool (SearchWorkspace)
// lists their pages and the newest conversations holding it, as the history search does: not the
// conversation asking, not one where only the offline agent's own answer holds the word, not an
// older conversation however well it matches. Fully ranked, that older one leads the conversations.
func TestTheSearchToolListsTheNewestConversationsHoldingACommonWord(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	f := newSearchFixture(t, store, "ada@example.com")
	now := time.Now().Truncate(time.Second)
	hour := func(h float64) time.Time { return now.Add(-time.Duration(h * float64(time.Hour))) }

	page, err := store.CreatePage(ctx, f.user, "Quinces", "Quinces keep for months in a cool cellar.")
	if err != nil {
		t.Fatal(err)
	}
	var general []int64
	for i := range 6 { // general[i] was active i+1 hours ago
		id, _ := f.conversation(fmt.Sprintf("Note %d", i), 0, hour(float64(i+1)), "about quinces", "a plain answer")
		general = append(general, id)
	}
	old, _ := f.conversation("Old note", 0, hour(50), "quinces, quinces and more quinces", "quinces indeed")
	asking, _ := f.conversation("Asking", 0, hour(0.1), "find my quinces")
	offline, answer := f.conversation("Offline", 0, hour(0.2), "what did I write?", "I searched for quinces")
	store.DB.MustExec(`UPDATE chat_message SET metadata = '{"provider": "offline"}' WHERE id = $1`, answer[1])

	kinds := func(hits []db.SearchHit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, fmt.Sprintf("%s %d", h.Kind, h.ID))
		}
		return out
	}
	walked, err := db.SearchWorkspaceWith(store, ctx, f.user, "quinces", asking, 4, 3, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var conversations []int64
	pages := 0
	for _, h := range walked {
		switch {
		case h.Kind == "page" && h.ID == page.ID:
			pages++
		case h.Kind == "conversation":
			conversations = append(conversations, h.ID)
			if !strings.Contains(h.Snippet, "**quinces**") || strings.ContainsAny(h.Snippet+h.Title, db.HighlightStart+db.HighlightStop) {
				t.Errorf("conversation %d: snippet %q, title %q; want the match in **bold** and no other marks", h.ID, h.Snippet, h.Title)
			}
		default:
			t.Errorf("unexpected hit %+v", h)
		}
	}
	want := fmt.Sprint(general[:3])
	if len(walked) != 4 || pages != 1 || fmt.Sprint(conversations) != want {
		t.Fatalf("walked hits %v, want page %d and conversations %s (never %d asking, %d offline, %d old)",
			kinds(walked), page.ID, want, asking, offline, old)
	}

	ranked, err := db.SearchWorkspaceWith(store, ctx, f.user, "quinces", asking, 4, 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(ranked) != 4 || ranked[0].Kind != "page" || ranked[1].Kind != "conversation" || ranked[1].ID != old {
		t.Fatalf("ranked hits %v, want the page (its title matches) then the old conversation %d", kinds(ranked), old)
	}
	for _, h := range ranked {
		if h.Kind == "conversation" && (h.ID == asking || h.ID == offline) {
			t.Errorf("ranked hits %v hold conversation %d", kinds(ranked), h.ID)
		}
	}
}
