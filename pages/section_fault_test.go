package pages

import (
	"strings"
	"testing"

	"parley/fault"
)

// A patch naming a duplicate heading says how many sections match, where they are, and how to name
// one by its path; that path then works.
func TestDuplicateHeadingFaultNamesThePaths(t *testing.T) {
	page := "# Changelog\n\n## 0.74.3\n\n### Fixes\n\na\n\n## 0.74.2\n\n### Fixes\n\nb\n"
	_, err := NewSectionPatch(page, OpReplace, "### Fixes", "### Fixes\n\nnew\n", "")
	msg := fault.As(err).Message
	for _, want := range []string{"2 sections", `"Changelog > 0.74.3"`, `"Changelog > 0.74.2"`, `"0.74.3 > Fixes"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %s", msg, want)
		}
	}
	if strings.Contains(msg, "## ###") {
		t.Errorf("message %q doubles the level marks", msg)
	}
	e, err := NewSectionPatch(page, OpReplace, "0.74.3 > Fixes", "### Fixes\n\nnew\n", "")
	if err != nil {
		t.Fatal(err)
	}
	r := Check(e, "", page)
	if r.Stale || r.Proposed != strings.Replace(page, "a\n", "new\n", 1) {
		t.Fatalf("patch by path: stale=%v %q %q", r.Stale, r.Reason, r.Proposed)
	}
}
