package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"parley/handlers/handlerstest"
)

// revisionTexts returns the content of every revision of the page, oldest first.
func revisionTexts(t *testing.T, app *handlerstest.App, pageID int64) []string {
	t.Helper()
	var texts []string
	if err := app.Store.DB.Select(&texts, `SELECT content FROM page_revisions WHERE page_id = $1 ORDER BY version`, pageID); err != nil {
		t.Fatal(err)
	}
	return texts
}

const tabsPage = "# Plan\n\nline one\n\nline two\n\nline three\n"

// Two tabs typing in turn: each tab's saves fold into the revision that tab wrote, never into the
// other tab's, so every text either tab saved last before the other one took over stays in the
// history.
func TestAutosavesFoldOnlyIntoTheirOwnEditorsRevision(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Plan", tabsPage)
	steps := []struct {
		editor  string
		version int
		content string
	}{
		{"tab-a", 1, strings.Replace(tabsPage, "one", "one (a)", 1)},
		{"tab-a", 2, strings.Replace(tabsPage, "one", "one (a, again)", 1)}, // folds into tab-a's revision
		{"tab-b", 3, strings.Replace(tabsPage, "one", "one (b)", 1)},        // a revision of its own
		{"tab-a", 4, strings.Replace(tabsPage, "one", "one (a, later)", 1)}, // not into tab-b's
		{"", 5, strings.Replace(tabsPage, "one", "one (no editor)", 1)},     // no session: never folds
		{"", 6, strings.Replace(tabsPage, "one", "one (no editor 2)", 1)},
	}
	for _, s := range steps {
		if res := saveFrom(c, s.editor, id, s.version, "Plan", s.content, nil); res.Status != http.StatusOK {
			t.Fatalf("save by %q on v%d: %d %s", s.editor, s.version, res.Status, res.Body)
		}
	}
	want := []string{tabsPage, steps[1].content, steps[2].content, steps[3].content, steps[4].content, steps[5].content}
	if got := revisionTexts(t, app, id); !slices.Equal(got, want) {
		t.Fatalf("revisions:\n%q\nwant\n%q", got, want)
	}
}

// A save based on an older version, sent with the text of that version, is merged with the newer
// one when the two changed different lines: both edits are in the page, and the other tab's text
// keeps its revision.
func TestSaveFromAnOlderVersionMergesEditsOfDifferentLines(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Plan", tabsPage)
	theirs := strings.Replace(tabsPage, "line one", "line one, edited in tab A", 1)
	if res := saveFrom(c, "tab-a", id, 1, "Plan", theirs, nil); res.Status != http.StatusOK {
		t.Fatal(res.Body)
	}
	mine := strings.Replace(tabsPage, "line three", "line three, edited in tab B", 1)
	// Without its base text the stale save is a conflict, as before.
	if res := saveFrom(c, "tab-b", id, 1, "Plan", mine, nil); res.Status != http.StatusConflict {
		t.Fatalf("stale save without base: %d", res.Status)
	}
	res := saveFrom(c, "tab-b", id, 1, "Plan", mine, url.Values{"base": {tabsPage}, "base_title": {"Plan"}})
	if res.Status != http.StatusOK {
		t.Fatalf("stale save with base: %d %s", res.Status, res.Body)
	}
	var body struct {
		Version int    `json:"version"`
		Merged  bool   `json:"merged"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal([]byte(res.Body), &body); err != nil {
		t.Fatal(err)
	}
	both := strings.Replace(theirs, "line three", "line three, edited in tab B", 1)
	if !body.Merged || body.Content != both || body.Version != 3 {
		t.Fatalf("answer %+v, want merged v3 %q", body, both)
	}
	if got := storedPage(t, app, id); got.Content != both || got.Version != 3 {
		t.Fatalf("stored %q v%d", got.Content, got.Version)
	}
	if got := revisionTexts(t, app, id); !slices.Equal(got, []string{tabsPage, theirs, both}) {
		t.Fatalf("revisions %q", got)
	}
}

// Edits of the same line are not merged: the save answers the conflict view and changes nothing.
func TestSaveFromAnOlderVersionWithOverlappingEditsIsAConflict(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Plan", tabsPage)
	theirs := strings.Replace(tabsPage, "line two", "line two by A", 1)
	if res := saveFrom(c, "tab-a", id, 1, "Plan", theirs, nil); res.Status != http.StatusOK {
		t.Fatal(res.Body)
	}
	mine := strings.Replace(tabsPage, "line two", "line two by B", 1)
	res := saveFrom(c, "tab-b", id, 1, "Plan", mine, url.Values{"base": {tabsPage}, "base_title": {"Plan"}})
	// The diff marks the changed word: "line two by <ins …>B</ins>" reads "line two by B".
	if res.Status != http.StatusConflict || !strings.Contains(res.Body, `data-testid="save-conflict"`) || !strings.Contains(htmlText(res.Body), "+ line two by B") {
		t.Fatalf("overlapping save: %d %s", res.Status, res.Body)
	}
	if got := storedPage(t, app, id); got.Content != theirs || got.Version != 2 {
		t.Fatalf("stored %q v%d", got.Content, got.Version)
	}
}

// htmlText is markup without its tags, as the text a person reads (entities left as they are).
func htmlText(markup string) string {
	return regexp.MustCompile(`<[^>]*>`).ReplaceAllString(markup, "")
}
