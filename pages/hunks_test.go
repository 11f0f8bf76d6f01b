package pages

import (
	"errors"
	"strings"
	"testing"

	"parley/fault"
	"parley/markdown"
)

// A full replacement is accepted hunk by hunk: each hunk of the diff shown is a row, and Apply
// writes the current page with exactly the chosen hunks applied, also when the proposal is a
// merge with edits made since.
func TestFullReplacementAppliesOnlyTheChosenHunks(t *testing.T) {
	var lines []string
	for i := range 30 {
		lines = append(lines, "colour "+strings.Repeat("x", i))
	}
	base := strings.Join(lines, "\n\n") + "\n" // "colour" on lines 1, 3, … 59
	page := strings.Replace(base, "colour x\n", "colour x, edited since\n", 1)
	proposed := strings.Replace(strings.Replace(base, "colour \n", "color \n", 1), "colour "+strings.Repeat("x", 29)+"\n", "color "+strings.Repeat("x", 29)+"\n", 1)
	e, err := NewFullReplacement(base, proposed, "")
	if err != nil {
		t.Fatal(err)
	}
	r := Check(e, markdown.ContentHash(base), page) // the page changed since: the proposal is merged
	if r.Stale || !r.Hunks || len(r.Rows) != 2 {
		t.Fatalf("stale %v hunks %v rows %+v", r.Stale, r.Hunks, r.Rows)
	}
	if r.Rows[0].Label != "Line 1" || r.Rows[1].Label != "Line 59" || r.Rows[0].Change != "changed" {
		t.Fatalf("labels %q, %q (%s)", r.Rows[0].Label, r.Rows[1].Label, r.Rows[0].Change)
	}
	got, err := r.Apply([]int{1})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(page, "colour "+strings.Repeat("x", 29)+"\n", "color "+strings.Repeat("x", 29)+"\n", 1)
	if got != want {
		t.Fatalf("hunk 1 only:\n%q\nwant\n%q", got, want)
	}
	if got, _ := r.Apply([]int{0, 1}); got != r.Proposed {
		t.Fatalf("every hunk gives %q, want the proposal %q", got, r.Proposed)
	}
	if _, err := r.Apply(nil); !errors.Is(err, ErrNothingSelected) {
		t.Fatalf("no hunk: %v", err)
	}
	if _, err := r.Apply([]int{2}); fault.CodeOf(err) != fault.Invalid {
		t.Fatalf("a hunk out of range: %v", err)
	}
}

// A hunk's label names the current page's lines it replaces, or where its new lines go.
func TestHunkLabels(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{"a\nb\nc\n", "a\nB\nc\n", "Line 2"},
		{"a\nb\nc\nd\n", "a\nB\nC\nd\n", "Lines 2–3"},
		{"a\nb\n", "a\nnew\nb\n", "After line 1"},
		{"a\nb\n", "new\na\nb\n", "At the start"},
		{"", "new\n", "At the start"},
		{"a\nb\n", "a\n", "Line 2"},
	} {
		d := markdown.LineDiff(c.old, c.new)
		if got := hunkLabel(d.Hunks[0]); got != c.want {
			t.Errorf("%q → %q: %q, want %q", c.old, c.new, got, c.want)
		}
	}
}

// A proposal that removes link reference definitions the rest of the page still uses says so
// before Accept: a patch removing a changelog's last section (where the definitions sit), and a
// rewrite that drops them.
func TestProposalWarnsOfLinkDefinitionsStillUsed(t *testing.T) {
	page := "# Changelog\n\n## [1.7.0]\n\n- New.\n\n## [1.6.0]\n\n- Old.\n\n[1.7.0]: https://example.com/1.7.0\n[1.6.0]: https://example.com/1.6.0\n"
	remove, err := NewSectionPatch(page, OpRemove, "## [1.6.0]", "", "")
	if err != nil {
		t.Fatal(err)
	}
	r := Check(remove, markdown.ContentHash(page), page)
	if want := "removes the link definition [1.7.0], which the page still uses"; !strings.Contains(r.Warning, want) {
		t.Fatalf("warning %q, want %q", r.Warning, want)
	}
	rewrite, err := NewFullReplacement(page, "# Changelog\n\n## [1.7.0]\n\n## [1.6.0]\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if r := Check(rewrite, markdown.ContentHash(page), page); !strings.Contains(r.Warning, "[1.6.0] and [1.7.0]") {
		t.Fatalf("rewrite warning %q", r.Warning)
	}
	keep, err := NewSectionPatch(page, OpReplace, "## [1.7.0]", "## [1.7.0]\n\n- Newer.\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if r := Check(keep, markdown.ContentHash(page), page); r.Warning != "" {
		t.Fatalf("a patch that keeps the definitions warns %q", r.Warning)
	}
}
