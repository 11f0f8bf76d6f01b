package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"parley/db"
	"parley/handlers/handlerstest"
)

// A deleted chat's pending proposals are out of reach while it is in the Trash and pending again
// once it is restored; deleting or restoring another page's chat through this page is 404 and
// changes nothing.
func TestTrashedChatsProposalsAreUnreachableUntilRestored(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Report", methodsPage)
	other := newPage(t, c, "Other", methodsPage)
	eid, answer := askPage(t, app, c, id, "remove section Results")
	pid := proposalOf(t, answer)
	otherChat, _ := askPage(t, app, c, other, "remove section Methods")

	if res := htmxPost(c, fmt.Sprintf("/pages/%d/chats/delete", id), url.Values{"id": {fmt.Sprint(otherChat)}}); res.Status != http.StatusNotFound {
		t.Errorf("deleting another page's chat: %d", res.Status)
	}
	if r := htmxGet(c, fmt.Sprintf("/pages/%d/chats/%d", other, otherChat)); r.Status != http.StatusOK {
		t.Fatalf("the other page's chat after a refused delete: %d", r.Status)
	}

	res := htmxPost(c, fmt.Sprintf("/pages/%d/chats/delete", id), url.Values{"id": {fmt.Sprint(eid)}})
	if res.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	if !strings.Contains(res.Body, `data-testid="undo"`) || !strings.Contains(res.Body, fmt.Sprintf("/pages/%d/chats/restore", id)) {
		t.Errorf("the delete offers no Undo: %s", res.Body)
	}
	if r := c.Get(fmt.Sprintf("/pages/%d/proposals/%d", id, pid)); r.Status != http.StatusNotFound {
		t.Errorf("a deleted chat's proposal shows: %d", r.Status)
	}
	for _, action := range []string{"accept", "reject", "undo"} {
		if r := htmxPost(c, fmt.Sprintf("/pages/%d/proposals/%d/%s", id, pid, action), url.Values{"version": {"1"}, "row": {"0"}}); r.Status != http.StatusNotFound {
			t.Errorf("%s of a deleted chat's proposal: %d", action, r.Status)
		}
	}
	if storedPage(t, app, id).Content != methodsPage {
		t.Error("a deleted chat's proposal changed the page")
	}
	if r := htmxPost(c, fmt.Sprintf("/pages/%d/chats/restore", other), url.Values{"ids": {fmt.Sprint(eid)}}); r.Status != http.StatusNotFound {
		t.Errorf("restoring this page's chat through another page: %d", r.Status)
	}
	if r := htmxPost(c, fmt.Sprintf("/pages/%d/chats/restore", id), url.Values{}); r.Status != http.StatusBadRequest {
		t.Errorf("restore with no ids: %d", r.Status)
	}
	res = htmxPost(c, fmt.Sprintf("/pages/%d/chats/restore", id), url.Values{"ids": {fmt.Sprint(eid)}})
	if res.Status != http.StatusOK || !strings.Contains(res.Body, fmt.Sprintf(`data-page-chat="%d"`, eid)) {
		t.Fatalf("restore: %d %s", res.Status, res.Body)
	}
	if s := proposalStatus(t, app, pid); s != "pending" {
		t.Errorf("the restored chat's proposal is %s", s)
	}
	if r := acceptAll(c, id, pid); r.Status != http.StatusOK || strings.Contains(storedPage(t, app, id).Content, "## Results") {
		t.Errorf("accepting the restored chat's proposal: %d", r.Status)
	}
}

// After Undo every row of the proposal is selected again, and a second Undo says it was undone.
func TestUndoSelectsAllRowsAndASecondUndoSaysSo(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Report", methodsPage)
	_, answer := askPage(t, app, c, id, "append Done. to section Results")
	pid := proposalOf(t, answer)
	if res := acceptAll(c, id, pid); res.Status != http.StatusOK {
		t.Fatalf("accept: %d %s", res.Status, res.Body)
	}
	undo := htmxPost(c, fmt.Sprintf("/pages/%d/proposals/%d/undo", id, pid), url.Values{})
	if undo.Status != http.StatusOK || !strings.Contains(undo.Body, "Apply (1)") || !regexp.MustCompile(`name="row" value="0"[^>]*checked`).MatchString(undo.Body) {
		t.Fatalf("after undo: %d %s", undo.Status, undo.Body)
	}
	again := htmxPost(c, fmt.Sprintf("/pages/%d/proposals/%d/undo", id, pid), url.Values{})
	if again.Status != http.StatusConflict || !strings.Contains(again.Body, "already undone") {
		t.Fatalf("second undo: %d %s", again.Status, again.Body)
	}
}

var askCount atomic.Int64

// askAgain sends a message in an existing page chat and waits for the answer.
func askAgain(t *testing.T, app *handlerstest.App, c *handlerstest.Client, pageID, exchangeID int64, query string) db.Message {
	t.Helper()
	res := htmxPost(c, fmt.Sprintf("/pages/%d/chats/%d/messages", pageID, exchangeID), url.Values{"query": {query}, "idempotency_key": {fmt.Sprintf("again%d", askCount.Add(1))}})
	if res.Status != http.StatusOK {
		t.Fatalf("send: %d %s", res.Status, res.Body)
	}
	return waitAnswer(t, app, exchangeID)
}

// A section patch supersedes only pending patches of the same section, a rewrite every pending
// proposal; accepting a superseded one says a newer proposal replaced it. A stale accept states
// its reason once.
func TestSupersedingFollowsConflictsAndSaysSo(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Report", methodsPage)
	eid, answer := askPage(t, app, c, id, "add a table of contents")
	toc := proposalOf(t, answer)
	results := proposalOf(t, askAgain(t, app, c, id, eid, "append Done. to section Results"))
	methods := proposalOf(t, askAgain(t, app, c, id, eid, "append More. to section Methods"))
	if s := proposalStatus(t, app, toc); s != "pending" {
		t.Errorf("a section patch superseded the pending rewrite: %s", s)
	}
	if s := proposalStatus(t, app, results); s != "pending" {
		t.Errorf("a patch of Methods superseded the patch of Results: %s", s)
	}
	newer := proposalOf(t, askAgain(t, app, c, id, eid, "append Later. to section Results"))
	if s := proposalStatus(t, app, results); s != "superseded" {
		t.Errorf("a second patch of Results left the first %s", s)
	}
	res := accept(c, id, results, 1, 0)
	if res.Status != http.StatusConflict || !strings.Contains(res.Body, "newer proposal") || strings.Contains(res.Body, "another tab") {
		t.Errorf("accepting a superseded proposal: %d %s", res.Status, res.Body)
	}
	proposalOf(t, askAgain(t, app, c, id, eid, "rename section Step 1 to First step"))
	rewrite := proposalOf(t, askAgain(t, app, c, id, eid, "add a table of contents please"))
	for _, p := range []int64{toc, methods, newer} {
		if s := proposalStatus(t, app, p); s != "superseded" {
			t.Errorf("a rewrite left proposal %d %s", p, s)
		}
	}
	_ = rewrite

	// Stale: a patch of Methods made stale by typing in Methods.
	eid2, answer := askPage(t, app, c, id, "append Again. to section Methods")
	_ = eid2
	stale := proposalOf(t, answer)
	p := storedPage(t, app, id)
	if r := save(c, id, p.Version, p.Title, strings.Replace(p.Content, "Old methods.", "Old methods, typed.", 1)); r.Status != http.StatusOK {
		t.Fatalf("save: %d", r.Status)
	}
	res = accept(c, id, stale, p.Version+1, 0)
	if res.Status != http.StatusConflict || strings.Count(res.Body, "was edited since") != 1 {
		t.Errorf("a stale accept: %d, reason shown %d times: %s", res.Status, strings.Count(res.Body, "was edited since"), res.Body)
	}
}

// A diff marks a last line without a line ending, as a unified diff does.
func TestDiffMarksAMissingFinalNewline(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Report", "# A\n\nalpha")
	_, answer := askPage(t, app, c, id, "append Done. to section A")
	panel := c.Get(fmt.Sprintf("/pages/%d/proposals/%d", id, proposalOf(t, answer)))
	if !strings.Contains(panel.Body, `\ No newline at end of file`) {
		t.Fatalf("panel: %s", panel.Body)
	}
}
