package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"parley/handlers/handlerstest"
)

func revisionContents(t *testing.T, app *handlerstest.App, pageID int64) []string {
	t.Helper()
	var s []string
	if err := app.Store.DB.Select(&s, `SELECT content FROM page_revisions WHERE page_id = $1 ORDER BY version`, pageID); err != nil {
		t.Fatal(err)
	}
	return s
}

// Typing right after creating a page keeps the first revision (the content as created), and typing
// after a proposal was made keeps the revision the proposal was based on.
func TestAutosaveNeverRewritesTheFirstOrABaseRevision(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Report", methodsPage)
	one := strings.Replace(methodsPage, "Intro text.", "Intro text, typed.", 1)
	if r := saveFrom(c, "tab-1", id, 1, "Report", one, nil); r.Status != http.StatusOK {
		t.Fatalf("save: %d", r.Status)
	}
	two := strings.Replace(one, "typed.", "typed twice.", 1)
	if r := saveFrom(c, "tab-1", id, 2, "Report", two, nil); r.Status != http.StatusOK {
		t.Fatalf("save: %d", r.Status)
	}
	if got := revisionContents(t, app, id); len(got) != 2 || got[0] != methodsPage || got[1] != two {
		t.Fatalf("revisions after typing on a new page: %q", got)
	}
	_, answer := askPage(t, app, c, id, "append Done. to section Results")
	proposalOf(t, answer)
	three := strings.Replace(two, "twice.", "thrice.", 1)
	if r := saveFrom(c, "tab-1", id, 3, "Report", three, nil); r.Status != http.StatusOK {
		t.Fatalf("save: %d", r.Status)
	}
	var base string
	if err := app.Store.DB.Get(&base, `SELECT r.content FROM page_edit_proposal pr JOIN page_revisions r ON r.id = pr.base_revision_id WHERE pr.page_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if base != two {
		t.Fatalf("the proposal's base revision now reads %q", base)
	}
	four := strings.Replace(three, "thrice.", "four times.", 1)
	if r := saveFrom(c, "tab-1", id, 4, "Report", four, nil); r.Status != http.StatusOK {
		t.Fatalf("save: %d", r.Status)
	}
	if got := revisionContents(t, app, id); len(got) != 3 || got[2] != four {
		t.Fatalf("typing after the proposal does not coalesce into one new revision: %q", got)
	}
}
