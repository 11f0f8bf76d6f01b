package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"parley/db"
	"parley/handlers/handlerstest"
)

const methodsPage = "# Report\n\nIntro text.\n\n## Methods\n\nOld methods.\n\n### Step 1\n\nFirst step.\n\n## Results\n\nOld results.\n"

// newPage creates a page through the form and returns its id.
func newPage(t *testing.T, c *handlerstest.Client, title, content string) int64 {
	t.Helper()
	res := c.PostForm("/pages", url.Values{"title": {title}, "content": {content}})
	var id int64
	if _, err := fmt.Sscanf(res.Header.Get("Location"), "/pages/%d/edit", &id); err != nil || res.Status != http.StatusSeeOther {
		t.Fatalf("create page: status %d, Location %q: %s", res.Status, res.Header.Get("Location"), res.Body)
	}
	return id
}

func storedPage(t *testing.T, app *handlerstest.App, id int64) db.Page {
	t.Helper()
	var p db.Page
	if err := app.Store.DB.Get(&p, `SELECT id, owner_id, title, content, version, current_revision_id, created_at, updated_at, deleted_at
		FROM pages WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return p
}

func revisionSources(t *testing.T, app *handlerstest.App, pageID int64) []string {
	t.Helper()
	var s []string
	if err := app.Store.DB.Select(&s, `SELECT edit_source FROM page_revisions WHERE page_id = $1 ORDER BY version`, pageID); err != nil {
		t.Fatal(err)
	}
	return s
}

// askPage sends a message in a new chat about the page and waits for the answer.
func askPage(t *testing.T, app *handlerstest.App, c *handlerstest.Client, pageID int64, query string) (int64, db.Message) {
	t.Helper()
	res := htmxPost(c, fmt.Sprintf("/pages/%d/chats", pageID), url.Values{"query": {query}, "idempotency_key": {fmt.Sprintf("k%d", len(query)*7919+int(pageID))}})
	if res.Status != http.StatusOK {
		t.Fatalf("send: status %d: %s", res.Status, res.Body)
	}
	var exchangeID int64
	if err := app.Store.DB.Get(&exchangeID, `SELECT id FROM chat_exchange WHERE page_id = $1 ORDER BY id DESC LIMIT 1`, pageID); err != nil {
		t.Fatal(err)
	}
	return exchangeID, waitAnswer(t, app, exchangeID)
}

// proposalOf reads the proposal id an answer carries.
func proposalOf(t *testing.T, m db.Message) int64 {
	t.Helper()
	var meta struct {
		Proposal *struct {
			ID int64 `json:"id"`
		} `json:"proposal"`
	}
	_ = json.Unmarshal(m.Metadata, &meta)
	if meta.Proposal == nil {
		t.Fatalf("the answer carries no proposal: %q %s", m.Content, m.Metadata)
	}
	return meta.Proposal.ID
}

func proposalStatus(t *testing.T, app *handlerstest.App, id int64) string {
	t.Helper()
	var s string
	if err := app.Store.DB.Get(&s, `SELECT status FROM page_edit_proposal WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return s
}

func accept(c *handlerstest.Client, pageID, proposalID int64, version int, rows ...int) handlerstest.Response {
	form := url.Values{"version": {fmt.Sprint(version)}}
	for _, r := range rows {
		form.Add("row", fmt.Sprint(r))
	}
	return htmxPost(c, fmt.Sprintf("/pages/%d/proposals/%d/accept", pageID, proposalID), form)
}

// acceptAll accepts a proposal with every row its panel shows checked.
func acceptAll(c *handlerstest.Client, pageID, proposalID int64) handlerstest.Response {
	panel := c.Get(fmt.Sprintf("/pages/%d/proposals/%d", pageID, proposalID))
	var rows []int
	for _, m := range regexp.MustCompile(`name="row" value="(\d+)"`).FindAllStringSubmatch(panel.Body, -1) {
		n, _ := strconv.Atoi(m[1])
		rows = append(rows, n)
	}
	version := regexp.MustCompile(`name="version" value="(\d+)"`).FindStringSubmatch(panel.Body)
	v, _ := strconv.Atoi(version[1])
	return accept(c, pageID, proposalID, v, rows...)
}

func save(c *handlerstest.Client, pageID int64, version int, title, content string) handlerstest.Response {
	return htmxPost(c, fmt.Sprintf("/pages/%d/save", pageID), url.Values{"version": {fmt.Sprint(version)}, "title": {title}, "content": {content}})
}

// saveFrom is an autosave by the editor session editor (one tab), with extra form fields.
func saveFrom(c *handlerstest.Client, editor string, pageID int64, version int, title, content string, extra url.Values) handlerstest.Response {
	form := url.Values{"version": {fmt.Sprint(version)}, "title": {title}, "content": {content}, "editor": {editor}}
	for k, v := range extra {
		form[k] = v
	}
	return htmxPost(c, fmt.Sprintf("/pages/%d/save", pageID), form)
}

func TestOfflineRenameProposalAcceptedAsAgentRevisionThenUndone(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Report", methodsPage)
	_, answer := askPage(t, app, c, id, "rename section Methods to Materials and methods")
	if !strings.Contains(answer.Content, "I've prepared") {
		t.Fatalf("answer = %q", answer.Content)
	}
	pid := proposalOf(t, answer)

	panel := c.Get(fmt.Sprintf("/pages/%d/proposals/%d", id, pid))
	if panel.Status != http.StatusOK || !strings.Contains(panel.Body, "Materials and methods") || !strings.Contains(panel.Body, `data-kind="delete"`) {
		t.Fatalf("panel: %d %s", panel.Status, panel.Body)
	}
	res := accept(c, id, pid, 1, 0)
	if res.Status != http.StatusOK || !strings.Contains(res.Body, `id="page-sync"`) || !strings.Contains(res.Body, "Undo") {
		t.Fatalf("accept: %d %s", res.Status, res.Body)
	}
	want := strings.Replace(methodsPage, "## Methods", "## Materials and methods", 1)
	if got := storedPage(t, app, id).Content; got != want {
		t.Fatalf("content after accept:\n%q\nwant\n%q", got, want)
	}
	if got := revisionSources(t, app, id); strings.Join(got, ",") != "user,agent" {
		t.Fatalf("revisions = %v", got)
	}
	if again := accept(c, id, pid, 2, 0); again.Status != http.StatusConflict || !strings.Contains(again.Body, "already decided") {
		t.Fatalf("second accept: %d %s", again.Status, again.Body)
	}
	undo := htmxPost(c, fmt.Sprintf("/pages/%d/proposals/%d/undo", id, pid), url.Values{})
	if undo.Status != http.StatusOK || !strings.Contains(undo.Body, `id="page-sync"`) {
		t.Fatalf("undo: %d %s", undo.Status, undo.Body)
	}
	if got := storedPage(t, app, id).Content; got != methodsPage {
		t.Fatalf("content after undo = %q", got)
	}
	if got := revisionSources(t, app, id); strings.Join(got, ",") != "user,agent,restore" {
		t.Fatalf("revisions = %v", got)
	}
	if s := proposalStatus(t, app, pid); s != db.ProposalPending {
		t.Fatalf("status after undo = %s", s)
	}
}

func TestConcurrentAcceptMakesExactlyOneRevision(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Report", methodsPage)
	_, answer := askPage(t, app, c, id, "remove section Results")
	pid := proposalOf(t, answer)
	var wg sync.WaitGroup
	statuses := make([]int, 4)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = accept(c, id, pid, 1, 0).Status
		}()
	}
	wg.Wait()
	ok, conflicts := 0, 0
	for _, s := range statuses {
		switch s {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
			conflicts++
		}
	}
	if ok != 1 || conflicts != len(statuses)-1 {
		t.Fatalf("statuses %v: want one 200 and the rest 409", statuses)
	}
	if got := revisionSources(t, app, id); strings.Join(got, ",") != "user,agent" {
		t.Fatalf("revisions = %v", got)
	}
	if strings.Contains(storedPage(t, app, id).Content, "Results") {
		t.Fatalf("the section was not removed: %q", storedPage(t, app, id).Content)
	}
}

func TestRejectedProposalStaysRejected(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Report", methodsPage)
	_, answer := askPage(t, app, c, id, "append Done. to section Results")
	pid := proposalOf(t, answer)
	res := htmxPost(c, fmt.Sprintf("/pages/%d/proposals/%d/reject", id, pid), url.Values{})
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "Rejected") {
		t.Fatalf("reject: %d %s", res.Status, res.Body)
	}
	again := c.Get(fmt.Sprintf("/pages/%d/proposals/%d", id, pid))
	if !strings.Contains(again.Body, "Rejected") || strings.Contains(again.Body, `data-testid="accept"`) {
		t.Fatalf("after reload: %s", again.Body)
	}
	if acc := accept(c, id, pid, 1, 0); acc.Status != http.StatusConflict {
		t.Fatalf("accepting a rejected proposal: %d", acc.Status)
	}
	if storedPage(t, app, id).Content != methodsPage {
		t.Fatal("a rejected proposal changed the page")
	}
}

func TestStaleSectionPatchIsRefusedButEditsElsewhereKeepItFresh(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Report", methodsPage)
	_, answer := askPage(t, app, c, id, "replace section Methods with New methods.")
	pid := proposalOf(t, answer)

	// An edit in another section: the patch still applies, to the current text.
	elsewhere := strings.Replace(methodsPage, "Old results.", "Better results.", 1)
	if res := save(c, id, 1, "Report", elsewhere); res.Status != http.StatusOK {
		t.Fatalf("save: %d %s", res.Status, res.Body)
	}
	panel := c.Get(fmt.Sprintf("/pages/%d/proposals/%d", id, pid))
	if strings.Contains(panel.Body, `data-stale="true"`) || !strings.Contains(panel.Body, "still applies") {
		t.Fatalf("panel after an edit elsewhere: %s", panel.Body)
	}

	// Typing in the target section makes it stale.
	inside := strings.Replace(elsewhere, "Old methods.", "Old methods, edited.", 1)
	if res := save(c, id, 2, "Report", inside); res.Status != http.StatusOK {
		t.Fatalf("save: %d %s", res.Status, res.Body)
	}
	panel = c.Get(fmt.Sprintf("/pages/%d/proposals/%d", id, pid))
	if !strings.Contains(panel.Body, `data-stale="true"`) || !strings.Contains(panel.Body, "was edited since") || !strings.Contains(panel.Body, `data-testid="redo"`) {
		t.Fatalf("panel after an edit in the section: %s", panel.Body)
	}
	res := accept(c, id, pid, 3, 0)
	if res.Status != http.StatusConflict || !strings.Contains(res.Body, "was edited since") {
		t.Fatalf("accepting a stale patch: %d %s", res.Status, res.Body)
	}
	if storedPage(t, app, id).Content != inside {
		t.Fatal("a stale patch changed the page")
	}
}

func TestFullReplacementMergesCleanEditsAndRefusesOverlappingOnes(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Report", methodsPage)
	_, answer := askPage(t, app, c, id, `replace "Old" with "Previous" everywhere`)
	pid := proposalOf(t, answer)

	edited := strings.Replace(methodsPage, "Intro text.", "Intro text, longer.", 1)
	if res := save(c, id, 1, "Report", edited); res.Status != http.StatusOK {
		t.Fatal(res.Body)
	}
	panel := c.Get(fmt.Sprintf("/pages/%d/proposals/%d", id, pid))
	if !strings.Contains(panel.Body, "merged") {
		t.Fatalf("panel: %s", panel.Body)
	}
	if res := acceptAll(c, id, pid); res.Status != http.StatusOK {
		t.Fatalf("accept: %d %s", res.Status, res.Body)
	}
	want := strings.ReplaceAll(edited, "Old", "Previous")
	if got := storedPage(t, app, id).Content; got != want {
		t.Fatalf("merged content:\n%q\nwant\n%q", got, want)
	}

	_, answer = askPage(t, app, c, id, "rewrite the page as # Short\n\nAll new.")
	pid = proposalOf(t, answer)
	overlap := strings.Replace(want, "# Report", "# Report!", 1)
	if res := save(c, id, 3, "Report", overlap); res.Status != http.StatusOK {
		t.Fatal(res.Body)
	}
	if res := accept(c, id, pid, 4); res.Status != http.StatusConflict || !strings.Contains(res.Body, "overlap") {
		t.Fatalf("overlapping accept: %d %s", res.Status, res.Body)
	}
}

func TestSaveBasedOnOldVersionIsAConflictThatOverwritesNothing(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Notes", "one\n")
	if res := saveFrom(c, "tab-1", id, 1, "Notes", "one\ntwo\n", nil); res.Status != http.StatusOK || !strings.Contains(res.Body, `"version":2`) {
		t.Fatalf("save: %d %s", res.Status, res.Body)
	}
	res := save(c, id, 1, "Notes", "one\nthree\n")
	if res.Status != http.StatusConflict || !strings.Contains(res.Body, `data-server-version="2"`) || !strings.Contains(res.Body, "three") {
		t.Fatalf("stale save: %d %s", res.Status, res.Body)
	}
	if got := storedPage(t, app, id); got.Content != "one\ntwo\n" || got.Version != 2 {
		t.Fatalf("stored %q v%d", got.Content, got.Version)
	}
	// Keeping one's own text is a save based on the version shown in the conflict.
	if res := saveFrom(c, "tab-1", id, 2, "Notes", "one\nthree\n", nil); res.Status != http.StatusOK {
		t.Fatalf("keep mine: %d %s", res.Status, res.Body)
	}
	// One editor's continuous typing coalesces into its newest user revision (never into the
	// first one).
	if got := revisionSources(t, app, id); len(got) != 2 {
		t.Fatalf("revisions = %v, want the first and one coalesced user revision", got)
	}
	for name, form := range map[string]url.Values{
		"invalid UTF-8":  {"version": {"3"}, "title": {"Notes"}, "content": {"a\xffb"}},
		"NUL":            {"version": {"3"}, "title": {"Notes"}, "content": {"a\x00b"}},
		"no version":     {"title": {"Notes"}, "content": {"x"}},
		"two-line title": {"version": {"3"}, "title": {"a\nb"}, "content": {"x"}},
	} {
		if res := htmxPost(c, fmt.Sprintf("/pages/%d/save", id), form); res.Status != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", name, res.Status)
		}
	}
	if got := storedPage(t, app, id).Content; got != "one\nthree\n" {
		t.Fatalf("bad saves changed the page: %q", got)
	}
}

func TestPagesAreOwnerOnlyAndTrashHidesThenPurgeDeletesEverything(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Secret", methodsPage)
	_, answer := askPage(t, app, c, id, "remove section Results")
	pid := proposalOf(t, answer)

	other := app.Client(t)
	other.SignUp("bob@example.com", "correct horse")
	for _, path := range []string{"/pages/%d", "/pages/%d/edit", "/pages/%d/revisions", "/pages/%d/chats/new", "/pages/%d/proposals/" + fmt.Sprint(pid)} {
		if res := other.Get(fmt.Sprintf(path, id)); res.Status != http.StatusNotFound {
			t.Errorf("GET %s by another user: %d, want 404", fmt.Sprintf(path, id), res.Status)
		}
	}
	if res := accept(other, id, pid, 1, 0); res.Status != http.StatusNotFound {
		t.Errorf("accept by another user: %d", res.Status)
	}
	if res := save(other, id, 1, "x", "x"); res.Status != http.StatusNotFound {
		t.Errorf("save by another user: %d", res.Status)
	}
	for _, path := range []string{"/pages/abc/edit", "/pages/0", "/pages/99999999/edit"} {
		if res := c.Get(path); res.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, res.Status)
		}
	}
	if list := other.Get("/pages"); strings.Contains(list.Body, "Secret") {
		t.Error("another user's list shows the page")
	}

	if res := c.PostForm(fmt.Sprintf("/pages/%d/trash", id), url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("trash: %d", res.Status)
	}
	if res := c.Get(fmt.Sprintf("/pages/%d/edit", id)); res.Status != http.StatusNotFound {
		t.Fatalf("a trashed page opens: %d", res.Status)
	}
	list := c.Get("/pages")
	if !strings.Contains(list.Body, fmt.Sprintf(`data-trash-row="%d"`, id)) {
		t.Fatal("the trash does not list the page")
	}
	if res := c.PostForm(fmt.Sprintf("/pages/%d/restore", id), url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("restore: %d", res.Status)
	}
	if res := c.Get(fmt.Sprintf("/pages/%d/edit", id)); res.Status != http.StatusOK || !strings.Contains(res.Body, "remove section Results") {
		t.Fatalf("the restored page or its chat is missing: %d", res.Status)
	}
	c.PostForm(fmt.Sprintf("/pages/%d/trash", id), url.Values{})
	if res := c.PostForm(fmt.Sprintf("/pages/%d/purge", id), url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("purge: %d", res.Status)
	}
	for _, table := range []string{"pages", "page_revisions", "chat_exchange", "page_edit_proposal"} {
		if n := count(t, app, table); n != 0 {
			t.Errorf("%s has %d rows after purge", table, n)
		}
	}
}

func TestOfflineAssistantCommandsMakeRealProposals(t *testing.T) {
	app, c := signedIn(t)
	cases := []struct {
		query string
		want  func(string) string
	}{
		{"rename section Results to Findings", func(d string) string { return strings.Replace(d, "## Results", "## Findings", 1) }},
		{"replace section Results with Nothing yet.", func(d string) string { return strings.Replace(d, "Old results.", "Nothing yet.", 1) }},
		{"append Second paragraph. to section Results", func(d string) string { return d + "\nSecond paragraph.\n" }},
		{"remove section Methods", func(d string) string {
			return strings.Replace(d, "## Methods\n\nOld methods.\n\n### Step 1\n\nFirst step.\n\n", "", 1)
		}},
		{`add a section "Discussion" with We discuss.`, func(d string) string { return d + "\n## Discussion\n\nWe discuss.\n" }},
		{`replace "Old" with "New" everywhere`, func(d string) string { return strings.ReplaceAll(d, "Old", "New") }},
		{"rewrite the page as # Fresh\n\nStart.", func(string) string { return "# Fresh\n\nStart.\n" }},
		{"add a table of contents", func(d string) string {
			return strings.Replace(d, "## Methods", "## Table of contents\n\n- [Methods](#h-methods)\n  - [Step 1](#h-step-1)\n- [Results](#h-results)\n\n## Methods", 1)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			id := newPage(t, c, "Report", methodsPage)
			_, answer := askPage(t, app, c, id, tc.query)
			pid := proposalOf(t, answer)
			if res := acceptAll(c, id, pid); res.Status != http.StatusOK {
				t.Fatalf("accept: %d %s", res.Status, res.Body)
			}
			if got, want := storedPage(t, app, id).Content, tc.want(methodsPage); got != want {
				t.Fatalf("page after accept:\n%q\nwant\n%q", got, want)
			}
		})
	}
	t.Run("anything else lists what it can do", func(t *testing.T) {
		id := newPage(t, c, "Report", methodsPage)
		_, answer := askPage(t, app, c, id, "make it sound nicer")
		if !strings.Contains(answer.Content, "rename section") || !strings.Contains(answer.Content, "table of contents") || !strings.Contains(answer.Content, "Methods") {
			t.Fatalf("help answer = %q", answer.Content)
		}
	})
	t.Run("a missing section is a clear answer, no proposal", func(t *testing.T) {
		id := newPage(t, c, "Report", methodsPage)
		_, answer := askPage(t, app, c, id, "remove section Appendix")
		if !strings.Contains(answer.Content, "couldn't find a section called **Appendix**") {
			t.Fatalf("answer = %q", answer.Content)
		}
	})
}

func TestSectionPatchRowsApplyOnlyTheSelectedSections(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Report", methodsPage)
	// Replacing Methods with text that renames it and edits its subsection: two changed rows.
	_, answer := askPage(t, app, c, id, "replace section Methods with ## Approach\n\nNew methods.\n\n### Step 1\n\nChanged step.")
	pid := proposalOf(t, answer)
	panel := c.Get(fmt.Sprintf("/pages/%d/proposals/%d", id, pid))
	if n := strings.Count(panel.Body, `data-testid="row-checkbox"`); n != 2 {
		t.Fatalf("%d rows, want 2: %s", n, panel.Body)
	}
	if res := accept(c, id, pid, 1, 1); res.Status != http.StatusOK {
		t.Fatalf("accept: %d %s", res.Status, res.Body)
	}
	want := strings.Replace(methodsPage, "First step.", "Changed step.", 1)
	if got := storedPage(t, app, id).Content; got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

func TestPageChatHistorySwitchDeleteAndClear(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Report", methodsPage)
	first, _ := askPage(t, app, c, id, "add a table of contents")
	second, _ := askPage(t, app, c, id, "remove section Results")
	third, _ := askPage(t, app, c, id, "rename section Results to Findings")

	// The editor resumes the latest conversation and lists all three.
	ed := c.Get(fmt.Sprintf("/pages/%d/edit", id))
	if !strings.Contains(ed.Body, "rename section Results to Findings") || strings.Count(ed.Body, "data-page-chat=") != 3 {
		t.Fatalf("editor: %d chats listed", strings.Count(ed.Body, "data-page-chat="))
	}
	// Switching shows the other conversation.
	sw := htmxGet(c, fmt.Sprintf("/pages/%d/chats/%d", id, first))
	if sw.Status != http.StatusOK || !strings.Contains(sw.Body, "add a table of contents") || strings.Contains(sw.Body, "remove section Results</div>") {
		t.Fatalf("switch: %d", sw.Status)
	}
	// Page chats stay out of the general chat history.
	if general := c.Get("/chat/new"); strings.Contains(general.Body, "table of contents") {
		t.Fatal("a page chat shows in the general history")
	}
	// Delete one, then clear the rest.
	res := htmxPost(c, fmt.Sprintf("/pages/%d/chats/delete", id), url.Values{"id": {fmt.Sprint(second)}})
	if res.Status != http.StatusOK || strings.Count(res.Body, "data-page-chat=") != 2 {
		t.Fatalf("delete one: %d, %d left", res.Status, strings.Count(res.Body, "data-page-chat="))
	}
	if r := htmxGet(c, fmt.Sprintf("/pages/%d/chats/%d", id, second)); r.Status != http.StatusNotFound {
		t.Fatalf("a deleted chat opens: %d", r.Status)
	}
	if r := htmxPost(c, fmt.Sprintf("/pages/%d/chats/delete", id), url.Values{}); r.Status != http.StatusBadRequest {
		t.Fatalf("delete with nothing selected: %d", r.Status)
	}
	res = htmxPost(c, fmt.Sprintf("/pages/%d/chats/delete", id), url.Values{"all": {"true"}})
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "No conversations yet") {
		t.Fatalf("clear all: %d %s", res.Status, res.Body)
	}
	if r := htmxGet(c, fmt.Sprintf("/pages/%d/chats/%d", id, third)); r.Status != http.StatusNotFound {
		t.Fatalf("a cleared chat opens: %d", r.Status)
	}
	// Another user cannot open or delete them.
	other := app.Client(t)
	other.SignUp("bob@example.com", "correct horse")
	if r := htmxGet(other, fmt.Sprintf("/pages/%d/chats/%d", id, first)); r.Status != http.StatusNotFound {
		t.Fatalf("another user's switch: %d", r.Status)
	}
}

func htmxGet(c *handlerstest.Client, path string) handlerstest.Response {
	req, _ := http.NewRequest(http.MethodGet, c.URL(path), nil)
	req.Header.Set("HX-Request", "true")
	return c.Do(req)
}

func TestRevisionsListDiffAndRestore(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Notes", "first\n")
	_, answer := askPage(t, app, c, id, "rewrite the page as second")
	if res := accept(c, id, proposalOf(t, answer), 1, 0); res.Status != http.StatusOK {
		t.Fatalf("accept: %d", res.Status)
	}
	full := c.Get(fmt.Sprintf("/pages/%d/revisions", id))
	if full.Status != http.StatusOK || !strings.Contains(full.Body, `id="page-editor"`) || strings.Count(full.Body, "data-revision=") != 2 {
		t.Fatalf("revisions page: %d, %d rows", full.Status, strings.Count(full.Body, "data-revision="))
	}
	var revs []int64
	if err := app.Store.DB.Select(&revs, `SELECT id FROM page_revisions WHERE page_id = $1 ORDER BY version`, id); err != nil {
		t.Fatal(err)
	}
	diff := htmxGet(c, fmt.Sprintf("/pages/%d/revisions/%d", id, revs[1]))
	if !strings.Contains(diff.Body, `data-kind="delete">- first`) || !strings.Contains(diff.Body, `data-kind="insert">+ second`) {
		t.Fatalf("diff to the previous revision: %s", diff.Body)
	}
	res := htmxPost(c, fmt.Sprintf("/pages/%d/revisions/%d/restore", id, revs[0]), url.Values{})
	if res.Status != http.StatusOK || !strings.Contains(res.Body, `id="page-sync"`) {
		t.Fatalf("restore: %d", res.Status)
	}
	if got := storedPage(t, app, id).Content; got != "first\n" {
		t.Fatalf("after restore: %q", got)
	}
	if got := revisionSources(t, app, id); strings.Join(got, ",") != "user,agent,restore" {
		t.Fatalf("revisions = %v", got)
	}
	other := app.Client(t)
	other.SignUp("bob@example.com", "correct horse")
	if r := htmxPost(other, fmt.Sprintf("/pages/%d/revisions/%d/restore", id, revs[1]), url.Values{}); r.Status != http.StatusNotFound {
		t.Fatalf("another user's restore: %d", r.Status)
	}
}

func TestNewSectionGoesWhereThePersonChooses(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Report", methodsPage)
	_, answer := askPage(t, app, c, id, `add a section "Discussion" with Talk.`)
	pid := proposalOf(t, answer)
	panel := c.Get(fmt.Sprintf("/pages/%d/proposals/%d", id, pid))
	if !strings.Contains(panel.Body, `data-testid="place"`) || !strings.Contains(panel.Body, "after ## Methods") {
		t.Fatalf("no place choice: %s", panel.Body)
	}
	moved := c.Get(fmt.Sprintf("/pages/%d/proposals/%d?version=1&place=%s", id, pid, url.QueryEscape("## Methods")))
	if !strings.Contains(moved.Body, `<option value="## Methods" selected>`) {
		t.Fatalf("the choice is not kept: %s", moved.Body)
	}
	form := url.Values{"version": {"1"}, "place": {"## Methods"}, "row": {"0"}}
	res := htmxPost(c, fmt.Sprintf("/pages/%d/proposals/%d/accept", id, pid), form)
	if res.Status != http.StatusOK {
		t.Fatalf("accept: %d %s", res.Status, res.Body)
	}
	want := strings.Replace(methodsPage, "First step.\n\n## Results", "First step.\n\n## Discussion\n\nTalk.\n\n## Results", 1)
	if got := storedPage(t, app, id).Content; got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	// A place that is not a section of the page is refused (400) and changes nothing.
	_, answer = askPage(t, app, c, id, `add a section "Appendix" with More.`)
	form = url.Values{"version": {"2"}, "place": {"## Nowhere"}, "row": {"0"}}
	if res := htmxPost(c, fmt.Sprintf("/pages/%d/proposals/%d/accept", id, proposalOf(t, answer)), form); res.Status != http.StatusBadRequest ||
		!strings.Contains(res.Header.Get("HX-Trigger"), "no place") {
		t.Fatalf("accept at nowhere: %d %v", res.Status, res.Header)
	}
	if got := storedPage(t, app, id).Content; got != want {
		t.Fatalf("got %q", got)
	}
}

func TestNewPageBadInputKeepsWhatWasTyped(t *testing.T) {
	app, c := signedIn(t)
	for name, tc := range map[string]struct {
		form   url.Values
		status int
		want   string
	}{
		"two-line title":  {url.Values{"title": {"a\nb"}, "content": {"kept text"}}, http.StatusBadRequest, "one line"},
		"invalid UTF-8":   {url.Values{"title": {"T"}, "content": {"kept text \xff"}}, http.StatusBadRequest, "UTF-8"},
		"too long a page": {url.Values{"title": {"T"}, "content": {strings.Repeat("x", 1_000_001)}}, http.StatusRequestEntityTooLarge, "larger than 1 MB"},
	} {
		t.Run(name, func(t *testing.T) {
			res := c.PostForm("/pages", tc.form)
			if res.Status != tc.status || !strings.Contains(res.Body, tc.want) {
				t.Fatalf("status %d, want %d with %q", res.Status, tc.status, tc.want)
			}
			if tc.status == http.StatusBadRequest && !strings.Contains(res.Body, "kept text") {
				t.Fatal("the form lost what was typed")
			}
		})
	}
	if n := count(t, app, "pages"); n != 0 {
		t.Fatalf("%d pages stored", n)
	}
}
