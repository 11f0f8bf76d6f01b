package db_test

import (
	"context"
	"slices"
	"testing"

	"parley/db"
	"parley/db/dbtest"
)

// branchByWalk is the branch on screen computed the slow way, from the tree: every message while
// the exchange never branched, else the leaf, its ancestors and their reasoning and tool items, in
// position order; and its number of questions.
func branchByWalk(t *testing.T, store *db.Store, exchangeID int64) ([]int64, int) {
	t.Helper()
	var all []struct {
		ID       int64  `db:"id"`
		ParentID *int64 `db:"parent_id"`
		Role     string `db:"role"`
	}
	if err := store.DB.Select(&all, `SELECT id, parent_id, role FROM chat_message WHERE exchange_id = $1 ORDER BY position, id`, exchangeID); err != nil {
		t.Fatal(err)
	}
	var leaf *int64
	if err := store.DB.Get(&leaf, `SELECT leaf_message_id FROM chat_exchange WHERE id = $1`, exchangeID); err != nil {
		t.Fatal(err)
	}
	path := map[int64]bool{}
	parents := map[int64]*int64{}
	for _, m := range all {
		parents[m.ID] = m.ParentID
	}
	for id := leaf; id != nil; id = parents[*id] {
		path[*id] = true
	}
	var ids []int64
	turns := 0
	for _, m := range all {
		item := m.Role == db.RoleReasoning || m.Role == db.RoleFunctionCall || m.Role == db.RoleFunctionCallOutput
		if leaf == nil || path[m.ID] || (item && m.ParentID != nil && path[*m.ParentID]) {
			ids = append(ids, m.ID)
			if m.Role == db.RoleUser {
				turns++
			}
		}
	}
	return ids, turns
}

// Regenerate, edit-and-resend, switching versions, opening a hit in an older version and new
// turns on either branch keep the stored branch (chat_message.on_branch) and the sidebar's turn
// count (chat_exchange.turns) exactly what a walk of the tree from the leaf gives.
func TestBranchFlagsAndTurnCountsFollowEveryMove(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	u, err := store.CreateUser(ctx, "ada@example.com", "Ada", "hash")
	if err != nil {
		t.Fatal(err)
	}
	o := db.Owner{UserID: u.ID}
	var exchangeID int64
	check := func(step string) {
		t.Helper()
		want, turns := branchByWalk(t, store, exchangeID)
		msgs, err := store.ExchangeMessages(ctx, exchangeID)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]int64, len(msgs))
		for i, m := range msgs {
			got[i] = m.ID
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: branch %v, the tree says %v", step, got, want)
		}
		row, err := store.ExchangeSummaryByID(ctx, u.ID, exchangeID)
		if err != nil {
			t.Fatal(err)
		}
		if row.Turns != turns {
			t.Fatalf("%s: %d turns, the tree says %d", step, row.Turns, turns)
		}
	}
	finish := func(m db.Message) {
		t.Helper()
		if err := store.SetAnswer(ctx, m.ID, "answer", db.StatusComplete, nil); err != nil {
			t.Fatal(err)
		}
	}
	turn := func(q string) db.Turn {
		t.Helper()
		tr, err := store.StartTurn(ctx, db.NewTurn{UserID: u.ID, ExchangeID: exchangeID, Query: q, Title: "t"})
		if err != nil {
			t.Fatal(err)
		}
		exchangeID = tr.Exchange.ID
		if _, err := store.WriteAnswer(ctx, db.AnswerWrite{ID: tr.Assistant.ID, Status: db.StatusStreaming, Insert: []db.Message{{Role: db.RoleReasoning, Content: "thinking", Status: db.StatusComplete}}}); err != nil {
			t.Fatal(err)
		}
		finish(tr.Assistant)
		check("turn " + q)
		return tr
	}
	first := turn("one")
	second := turn("two")
	turn("three")

	regen, err := store.Regenerate(ctx, o, exchangeID, second.Assistant.ID, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	check("regenerate the second answer")
	finish(regen)
	turn("four, after the new answer")

	edited, answer, err := store.EditQuery(ctx, o, exchangeID, first.User.ID, "one, edited", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	check("edit the first question")
	finish(answer)
	turn("five, on the edited line")

	if err := store.SwitchBranch(ctx, o, exchangeID, edited.ID, first.User.ID); err != nil {
		t.Fatal(err)
	}
	check("switch back to the first question")
	if err := store.SwitchBranch(ctx, o, exchangeID, regen.ID, second.Assistant.ID); err != nil {
		t.Fatal(err)
	}
	check("switch to the old second answer")
	turn("six, after the old answer")
	if changed, err := store.ShowVersionOf(ctx, exchangeID, answer.ID); err != nil || !changed {
		t.Fatalf("showing the edited line: changed %v, %v", changed, err)
	}
	check("open a hit in the edited line")
	if changed, err := store.ShowVersionOf(ctx, exchangeID, answer.ID); err != nil || changed {
		t.Fatalf("showing the line on screen again: changed %v, %v", changed, err)
	}
}

// versionsByTree is the versions of each of ids computed the slow way: its siblings of its role
// under the same parent, in id order, for those with more than one.
func versionsByTree(t *testing.T, store *db.Store, exchangeID int64, ids []int64) map[int64]db.Siblings {
	t.Helper()
	var all []struct {
		ID       int64  `db:"id"`
		ParentID *int64 `db:"parent_id"`
		Role     string `db:"role"`
	}
	if err := store.DB.Select(&all, `SELECT id, parent_id, role FROM chat_message WHERE exchange_id = $1 ORDER BY id`, exchangeID); err != nil {
		t.Fatal(err)
	}
	type key struct {
		parent int64
		role   string
	}
	groups := map[key][]int64{}
	keys := map[int64]key{}
	for _, m := range all {
		if m.Role != db.RoleUser && m.Role != db.RoleAssistant {
			continue
		}
		k := key{role: m.Role}
		if m.ParentID != nil {
			k.parent = *m.ParentID
		}
		groups[k] = append(groups[k], m.ID)
		keys[m.ID] = k
	}
	out := map[int64]db.Siblings{}
	for _, id := range ids {
		g, ok := groups[keys[id]]
		if !ok || len(g) < 2 {
			continue
		}
		i := slices.Index(g, id)
		s := db.Siblings{Index: i + 1, Count: len(g)}
		if i > 0 {
			s.Prev = g[i-1]
		}
		if i < len(g)-1 {
			s.Next = g[i+1]
		}
		out[id] = s
	}
	return out
}

// BranchWindow reads the window ExchangeWindow reads, with the versions of its messages (questions
// and answers with older versions), as the tree gives them, for every window of a branched
// conversation; BranchSiblings finds none in a never-branched one.
func TestBranchWindowIsTheWindowWithItsVersions(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	seed := dbtest.NewSeeder(t, store.DB)
	users := seed.Users(t, "window", 1)
	branched, _ := seed.Long(t, users[0], 300, true)
	linear, _ := seed.Long(t, users[0], 100, false)
	found := 0
	for before := 0; ; {
		msgs, versions, older, err := store.BranchWindow(ctx, branched, before, 40)
		if err != nil {
			t.Fatal(err)
		}
		want, wantOlder, err := store.ExchangeWindow(ctx, branched, before, 40)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]int64, len(msgs))
		for i, m := range msgs {
			ids[i] = m.ID
		}
		wantIDs := make([]int64, len(want))
		for i, m := range want {
			wantIDs[i] = m.ID
		}
		if !slices.Equal(ids, wantIDs) || older != wantOlder || len(msgs) == 0 {
			t.Fatalf("before %d: window %v (older %v), want %v (older %v)", before, ids, older, wantIDs, wantOlder)
		}
		if msgs[0].Content != want[0].Content || msgs[0].Role != want[0].Role || !msgs[0].CreatedAt.Equal(want[0].CreatedAt) {
			t.Fatalf("before %d: first message %+v, want %+v", before, msgs[0], want[0])
		}
		sibs := versionsByTree(t, store, branched, ids)
		if len(versions) != len(sibs) {
			t.Fatalf("before %d: %d messages with versions, want %d", before, len(versions), len(sibs))
		}
		for id, s := range sibs {
			if versions[id] != s {
				t.Fatalf("before %d: message %d versions %+v, want %+v", before, id, versions[id], s)
			}
		}
		found += len(versions)
		if !older {
			break
		}
		before = msgs[0].Position
	}
	if found < 10 {
		t.Fatalf("only %d messages with versions in a conversation regenerated every 10th answer", found)
	}
	if sibs, err := store.BranchSiblings(ctx, linear, []int64{1, 2, 3}); err != nil || len(sibs) != 0 {
		t.Fatalf("a never-branched conversation has versions %v, %v", sibs, err)
	}
}
