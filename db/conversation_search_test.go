package db_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"parley/db"
	"parley/db/dbtest"
)

// searchFixture writes conversations straight into the tables, each with its title, page, time and
// messages, and returns their ids.
type searchFixture struct {
	t     *testing.T
	store *db.Store
	user  int64
	agent int64
}

// conversation adds one conversation of the fixture's user last active at, about page (0: a
// general chat), holding messages (alternately question and answer, a second apart, the last at
// at); it returns the conversation's id and its messages' ids.
func (f searchFixture) conversation(title string, page int64, at time.Time, messages ...string) (int64, []int64) {
	f.t.Helper()
	var id int64
	if err := f.store.DB.Get(&id, `INSERT INTO chat_exchange (user_id, agent_id, title, page_id, created_at, updated_at)
		VALUES ($1, $2, $3, nullif($4, 0), $5, $5) RETURNING id`, f.user, f.agent, title, page, at); err != nil {
		f.t.Fatal(err)
	}
	ids := make([]int64, len(messages))
	for i, content := range messages {
		when := at.Add(-time.Duration(len(messages)-1-i) * time.Second)
		if err := f.store.DB.Get(&ids[i], `INSERT INTO chat_message (exchange_id, position, role, content, status, search, created_at, updated_at)
			VALUES ($1, $2, $3, $4, 'complete', to_tsvector('english', $4), $5, $5) RETURNING id`,
			id, i+1, []string{"user", "assistant"}[i%2], content, when); err != nil {
			f.t.Fatal(err)
		}
	}
	return id, ids
}

func newSearchFixture(t *testing.T, store *db.Store, email string) searchFixture {
	t.Helper()
	u, err := store.CreateUser(context.Background(), email, email, "hash")
	if err != nil {
		t.Fatal(err)
	}
	f := searchFixture{t: t, store: store, user: u.ID}
	if err := store.DB.Get(&f.agent, `SELECT id FROM agents WHERE identifier = 'auto'`); err != nil {
		t.Fatal(err)
	}
	return f
}

// hitIDs is each hit's conversation and message, in order.
func hitIDs(hits []db.ConversationHit) [][2]int64 {
	out := make([][2]int64, len(hits))
	for i, h := range hits {
		out[i] = [2]int64{h.ExchangeID, h.MessageID}
	}
	return out
}

// A word in more of a person's messages than a search ranks lists the newest conversations holding
// it, live ones only (not in the trash, page chats of live pages, labelled), each once at its newest
// match, with the title matches active since the oldest of them; they are ranked among themselves.
// Fully ranked, the same search also finds an older conversation whose title matches.
func TestACommonWordListsTheNewestConversationsHoldingIt(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	f := newSearchFixture(t, store, "ada@example.com")
	now := time.Now().Truncate(time.Second)
	hour := func(h float64) time.Time { return now.Add(-time.Duration(h * float64(time.Hour))) }

	var live, trashed int64
	if err := store.DB.Get(&live, `INSERT INTO pages (owner_id, title) VALUES ($1, 'Orchard') RETURNING id`, f.user); err != nil {
		t.Fatal(err)
	}
	if err := store.DB.Get(&trashed, `INSERT INTO pages (owner_id, title, deleted_at) VALUES ($1, 'Old orchard', now()) RETURNING id`, f.user); err != nil {
		t.Fatal(err)
	}
	var general []int64
	for i := range 6 { // general[i] was active i+1 hours ago
		id, _ := f.conversation(fmt.Sprintf("Note %d", i), 0, hour(float64(i+1)), "about quinces", "a plain answer")
		general = append(general, id)
	}
	// The newest conversation of all is in the trash; the next two are page chats, one about a page
	// in the trash.
	bin, _ := f.conversation("Binned", 0, hour(0.1), "quinces again", "yes")
	store.DB.MustExec(`UPDATE chat_exchange SET deleted_at = now() WHERE id = $1`, bin)
	pageChat, pageMsgs := f.conversation("Page talk", live, hour(0.2), "quinces on the page", "ok")
	f.conversation("Trashed page talk", trashed, hour(0.3), "quinces elsewhere", "ok")
	// One conversation holds the word three times: it is listed once, at its newest match.
	repeated, many := f.conversation("Note repeated", 0, hour(0.5), "about quinces", "quinces", "about quinces", "done")
	// Titles only: one active within the newest hits, one long before them.
	newTitle, _ := f.conversation("Quinces", 0, hour(1.5), "nothing here")
	oldTitle, _ := f.conversation("Quinces", 0, hour(30), "nothing here")
	// Another person's newer conversation never shows.
	other := newSearchFixture(t, store, "bob@example.com")
	other.conversation("Bob", 0, now, "quinces too", "ok")

	walked, err := db.SearchConversationsWith(store, ctx, f.user, "quinces", 5, 3, 1000)
	if err != nil {
		t.Fatal(err)
	}
	// The five newest live conversations with a matching message are the page chat (0.2 h ago),
	// the repeated one (0.5 h), general[0], [1] and [2] (1, 2, 3 h); the title match of 1.5 h joins
	// them and, counting double, leads; general[2] falls past the limit.
	want := [][2]int64{{newTitle, 0}, {pageChat, pageMsgs[0]}, {repeated, many[2]}, {general[0], 0}, {general[1], 0}}
	got := hitIDs(walked)
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3][0] != want[3][0] || got[4][0] != want[4][0] {
		t.Fatalf("walked hits %v, want %v", got, want)
	}
	if walked[1].PageID != live || walked[1].PageTitle != "Orchard" {
		t.Errorf("the page chat's hit is labelled page %d %q, want %d \"Orchard\"", walked[1].PageID, walked[1].PageTitle, live)
	}
	for _, h := range walked {
		if h.MessageID != 0 && h.Snippet == "" {
			t.Errorf("hit %d has no snippet", h.ExchangeID)
		}
	}

	ranked, err := db.SearchConversationsWith(store, ctx, f.user, "quinces", 5, 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(ranked); len(got) != 5 || got[0][0] != newTitle || got[1][0] != oldTitle || got[2] != want[1] {
		t.Fatalf("ranked hits %v, want the two title matches, then the page chat", got)
	}
	if ids := hitIDs(walked); slices.ContainsFunc(ids, func(h [2]int64) bool { return h[0] == oldTitle }) {
		t.Fatalf("the newest conversations came with a title match older than their hits: %v", ids)
	}
	// When the newest messages hold too few of its conversations, every match is ranked.
	narrow, err := db.SearchConversationsWith(store, ctx, f.user, "quinces", 5, 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := hitIDs(narrow), hitIDs(ranked); !slices.Equal(a, b) {
		t.Fatalf("with 3 newest messages read the hits are %v, want every match ranked: %v", a, b)
	}
}

// For a word common for the person, every conversation listed with a message hit is one of the
// newest limit conversations holding it, at its newest match (checked against a plain query on
// seeded conversations), and the hits are in rank order; with too few of them among the newest
// messages read, the search ranks every match, exactly as for a rare word.
func TestCommonWordHitsAreTheNewestConversationsHoldingIt(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	seed := dbtest.NewSeeder(t, store.DB)
	users := seed.Users(t, "recent", 2)
	seed.Conversations(t, users, 300, 10)
	seed.Analyze(t)
	user := users[0]
	const limit = 25
	for _, query := range []string{seed.Frequent, seed.Vocabulary[3] + " or " + seed.Vocabulary[4], seed.Frequent + " -" + seed.Vocabulary[6]} {
		var newest []struct {
			ExchangeID int64 `db:"exchange_id"`
			MessageID  int64 `db:"id"`
		}
		if err := store.DB.Select(&newest, `SELECT exchange_id, id FROM (
				SELECT DISTINCT ON (exchange_id) exchange_id, id, created_at FROM chat_message
				WHERE user_id = $1 AND search @@ websearch_to_tsquery('english', $2)
				ORDER BY exchange_id, created_at DESC, id DESC) n
			ORDER BY created_at DESC, id DESC LIMIT $3`, user, query, limit); err != nil {
			t.Fatal(err)
		}
		if len(newest) < limit {
			t.Fatalf("%q is in %d conversations: the seed does not exercise the search", query, len(newest))
		}
		want := map[int64]int64{}
		for _, n := range newest {
			want[n.ExchangeID] = n.MessageID
		}
		hits, err := db.SearchConversationsWith(store, ctx, user, query, limit, 0, 100000)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != limit {
			t.Fatalf("%q: %d hits, want %d", query, len(hits), limit)
		}
		messages := 0
		for i, h := range hits {
			if h.MessageID != 0 {
				messages++
				if want[h.ExchangeID] != h.MessageID {
					t.Errorf("%q: hit %d is conversation %d at message %d, not one of the newest holding it at its newest match", query, i, h.ExchangeID, h.MessageID)
				}
			}
			if i > 0 && (h.Rank > hits[i-1].Rank || h.Rank == hits[i-1].Rank && h.At.After(hits[i-1].At)) {
				t.Errorf("%q: hit %d (rank %v, %v) comes after a lower one (rank %v, %v)", query, i, h.Rank, h.At, hits[i-1].Rank, hits[i-1].At)
			}
		}
		if messages == 0 {
			t.Fatalf("%q: no message hits", query)
		}
		narrow, err := db.SearchConversationsWith(store, ctx, user, query, limit, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		ranked, err := db.SearchConversationsWith(store, ctx, user, query, limit, 100000, 10)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := hitIDs(narrow), hitIDs(ranked); !slices.Equal(a, b) {
			t.Errorf("%q: reading 10 newest messages the hits are %v, want every match ranked: %v", query, a, b)
		}
	}
}
