package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"parley/handlers/handlerstest"
)

// revisionIDs lists a page's revision ids by version.
func revisionIDs(t *testing.T, app *handlerstest.App, pageID int64) []int64 {
	t.Helper()
	var ids []int64
	if err := app.Store.DB.Select(&ids, `SELECT id FROM page_revisions WHERE page_id = $1 ORDER BY version`, pageID); err != nil {
		t.Fatal(err)
	}
	return ids
}

// Each row of the revisions panel says what its revision changed against the one before (+a −d
// and the sections touched), computed once and stored with the row; an autosave that coalesces
// into a revision has it computed again.
func TestRevisionRowsSayWhatChangedAndAreComputedOnce(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Report", methodsPage)
	two := strings.Replace(methodsPage, "Old results.", "New results.\nMore results.", 1)
	if r := saveFrom(c, "tab-1", id, 1, "Report", two, nil); r.Status != http.StatusOK {
		t.Fatalf("save: %d", r.Status)
	}
	panel := htmxGet(c, fmt.Sprintf("/pages/%d/revisions", id))
	rows := regexp.MustCompile(`(?s)data-testid="revision-lines">(.*?)</span></span>.*?(?:data-testid="revision-sections">([^<]*)<|</button>)`).FindAllStringSubmatch(panel.Body, -1)
	strip := regexp.MustCompile(`<[^>]+>`)
	if len(rows) != 2 {
		t.Fatalf("%d rows: %s", len(rows), panel.Body)
	}
	if got := strip.ReplaceAllString(rows[0][1], ""); got != "+2 −1" || rows[0][2] != "Results" {
		t.Errorf("the save's row: %q, sections %q", got, rows[0][2])
	}
	if got := strip.ReplaceAllString(rows[1][1], ""); got != "+15 −0" || rows[1][2] != "Report · Methods · Step 1 · Results" {
		t.Errorf("the first revision's row: %q, sections %q", got, rows[1][2])
	}
	var stored int
	if err := app.Store.DB.Get(&stored, `SELECT count(*) FROM page_revisions WHERE page_id = $1 AND adds IS NOT NULL AND sections IS NOT NULL`, id); err != nil || stored != 2 {
		t.Fatalf("%d rows stored what they changed (%v)", stored, err)
	}

	three := strings.Replace(two, "Intro text.", "Intro text, typed.", 1)
	if r := saveFrom(c, "tab-1", id, 2, "Report", three, nil); r.Status != http.StatusOK { // coalesces into v2's row
		t.Fatalf("save: %d", r.Status)
	}
	panel = htmxGet(c, fmt.Sprintf("/pages/%d/revisions", id))
	if !strings.Contains(panel.Body, `data-testid="revision-sections">Report · Results<`) {
		t.Errorf("the coalesced revision's row does not name both sections: %s", panel.Body)
	}
}

// Any two revisions compare, older to newer whichever order they were ticked in; anything but
// two revisions of this page is refused with the reason.
func TestAnyTwoRevisionsCompare(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Notes", "one\n")
	for v, text := range []string{"two\n", "three\n"} {
		if r := save(c, id, v+1, "Notes", text); r.Status != http.StatusOK {
			t.Fatalf("save: %d", r.Status)
		}
	}
	revs := revisionIDs(t, app, id)
	if len(revs) != 3 {
		t.Fatalf("%d revisions", len(revs))
	}
	compare := func(ids ...int64) handlerstest.Response {
		q := url.Values{}
		for _, r := range ids {
			q.Add("compare", fmt.Sprint(r))
		}
		return htmxGet(c, fmt.Sprintf("/pages/%d/revisions/compare?%s", id, q.Encode()))
	}
	res := compare(revs[2], revs[0])
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "v1 → v3") || !strings.Contains(res.Body, `data-kind="delete">- one`) ||
		!strings.Contains(res.Body, `data-kind="insert">+ three`) || strings.Contains(res.Body, "two") {
		t.Fatalf("compare v3 with v1: %d %s", res.Status, res.Body)
	}
	for _, bad := range [][]int64{{revs[0]}, {revs[0], revs[0]}, {revs[0], revs[1], revs[2]}} {
		if r := compare(bad...); r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "Tick exactly two revisions") {
			t.Errorf("compare %v: %d %s", bad, r.Status, r.Body)
		}
	}
	other := newPage(t, c, "Other", "x\n")
	if r := compare(revs[0], revisionIDs(t, app, other)[0]); r.Status != http.StatusNotFound {
		t.Errorf("comparing with another page's revision: %d", r.Status)
	}
}
