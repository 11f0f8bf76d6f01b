package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// releasesPage repeats "### Added" under each release, as Keep a Changelog does.
const releasesPage = "# Changelog\n\n## [1.7.0] - 2020-09-14\n\n### Added\n\n- Export.\n\n## [1.6.0] - 2020-08-01\n\n### Added\n\n- Import.\n"

// Through the page chat, the offline assistant edits a duplicated section named by its parent,
// Accept writes exactly that section, and a path naming no section gets a plain answer.
func TestPageChatEditsADuplicatedSectionNamedByItsParent(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Changelog", releasesPage)
	_, answer := askPage(t, app, c, id, "replace section [1.6.0] - 2020-08-01 > Added with - Import from CSV.")
	pid := proposalOf(t, answer)
	if res := acceptAll(c, id, pid); res.Status != http.StatusOK {
		t.Fatalf("accept: %d %s", res.Status, res.Body)
	}
	want := strings.Replace(releasesPage, "- Import.", "- Import from CSV.", 1)
	if got := storedPage(t, app, id).Content; got != want {
		t.Fatalf("page = %q, want %q", got, want)
	}

	_, answer = askPage(t, app, c, id, "rename section [2.0.0] > Added to New")
	if !strings.Contains(answer.Content, `No section **Added** is under **\[2.0.0\]**`) || strings.Contains(answer.Content, "markdown:") {
		t.Fatalf("answer = %q", answer.Content)
	}
}
