package pages

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"parley/fault"
	"parley/markdown"
)

const doc = "# Report\n\nIntro.\n\n## Methods\n\nOld methods.\n\n### Step 1\n\nFirst.\n\n## Results\n\nOld results.\n"

func mustPatch(t *testing.T, seen, op, target, content string) Edit {
	t.Helper()
	e, err := NewSectionPatch(seen, op, target, content, "")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestSectionPatchStaleness(t *testing.T) {
	e := mustPatch(t, doc, "", "## Methods", "## Methods\n\nNew methods.\n")
	hash := markdown.ContentHash(doc)
	for _, tc := range []struct {
		name, current, reason, want string
	}{
		{"unchanged page", doc, "", strings.Replace(doc, "Old methods.\n\n### Step 1\n\nFirst.\n", "New methods.\n", 1)},
		{"edited elsewhere", strings.Replace(doc, "Old results.", "New results.", 1), "",
			strings.Replace(strings.Replace(doc, "Old results.", "New results.", 1), "Old methods.\n\n### Step 1\n\nFirst.\n", "New methods.\n", 1)},
		{"edited in a subsection of the target", strings.Replace(doc, "First.", "First!", 1), "was edited since", ""},
		{"target renamed away", strings.Replace(doc, "## Methods", "## Approach", 1), "no longer in the page", ""},
		{"target duplicated", doc + "\n## Methods\n\nAgain.\n", "matches several sections", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(e, hash, tc.current)
			if tc.reason != "" {
				if !r.Stale || !strings.Contains(r.Reason, tc.reason) {
					t.Fatalf("stale=%v reason=%q, want stale with %q", r.Stale, r.Reason, tc.reason)
				}
				if _, err := r.Apply([]int{0}); fault.CodeOf(err) != fault.Conflict {
					t.Fatalf("applying a stale review: %v", err)
				}
				return
			}
			if r.Stale {
				t.Fatalf("stale: %s", r.Reason)
			}
			got, err := r.Apply(allRows(r))
			if err != nil || got != tc.want {
				t.Fatalf("Apply = %q, %v\nwant %q", got, err, tc.want)
			}
			if got != r.Proposed {
				t.Fatal("applying every row differs from the proposed text")
			}
		})
	}
}

func allRows(r Review) []int {
	var rows []int
	for _, row := range r.Rows {
		rows = append(rows, row.Index)
	}
	return rows
}

func TestFullReplacementStalenessAndMerge(t *testing.T) {
	proposed := strings.Replace(doc, "Old methods.", "Rewritten methods.", 1)
	e, err := NewFullReplacement(doc, proposed, "")
	if err != nil {
		t.Fatal(err)
	}
	hash := markdown.ContentHash(doc)
	if r := Check(e, hash, doc); r.Stale || r.Proposed != proposed || r.Note != "" || r.Diff.Adds != 1 || r.Diff.Dels != 1 {
		t.Fatalf("fresh: %+v", r)
	}
	clean := strings.Replace(doc, "Intro.", "Intro, edited.", 1)
	if r := Check(e, hash, clean); r.Stale || r.Proposed != strings.Replace(proposed, "Intro.", "Intro, edited.", 1) || r.Note == "" {
		t.Fatalf("clean merge: %+v", r)
	}
	overlap := strings.Replace(doc, "Old methods.", "My methods.", 1)
	if r := Check(e, hash, overlap); !r.Stale || !strings.Contains(r.Reason, "overlap") {
		t.Fatalf("overlap: %+v", r)
	}
	if r := Check(e, hash, proposed); !r.Unchanged {
		t.Fatal("a page already reading as proposed is not Unchanged")
	}
}

func TestRowsApplyOnlyTheSelection(t *testing.T) {
	e := mustPatch(t, doc, "", "## Methods", "## Approach\n\nNew methods.\n\n### Step 1\n\nSecond.\n")
	r := Check(e, markdown.ContentHash(doc), doc)
	if len(r.Rows) != 2 || r.Rows[0].Label != "## Approach" || r.Rows[0].Change != "changed" || r.Rows[1].Label != "### Step 1" {
		t.Fatalf("rows = %+v", r.Rows)
	}
	only := func(rows ...int) string {
		got, err := r.Apply(rows)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got, want := only(0), strings.Replace(strings.Replace(doc, "## Methods", "## Approach", 1), "Old methods.", "New methods.", 1); got != want {
		t.Fatalf("row 0: %q", got)
	}
	if got, want := only(1), strings.Replace(doc, "First.", "Second.", 1); got != want {
		t.Fatalf("row 1: %q", got)
	}
	if _, err := r.Apply(nil); !errors.Is(err, ErrNothingSelected) {
		t.Fatalf("no rows: %v", err)
	}
	if _, err := r.Apply([]int{7}); fault.CodeOf(err) != fault.Invalid {
		t.Fatalf("a row out of range: %v", err)
	}
}

func TestNewEditsRefuseBadTargets(t *testing.T) {
	dup := doc + "\n## Methods\n\nAgain.\n"
	for _, tc := range []struct {
		name, seen, op, target, content, want string
	}{
		{"missing", doc, "", "## Discussion", "## Discussion\nx\n", "no section is called"},
		{"ambiguous", dup, "", "Methods", "## Methods\nx\n", "matches 2 sections"},
		{"add without heading", doc, "add", "", "just text", "must start with a heading"},
		{"unknown op", doc, "move", "## Methods", "x", "unknown operation"},
		{"no change", doc, "", "## Results", "## Results\n\nOld results.\n", "changes nothing"},
		{"invalid UTF-8", doc, "", "## Results", "a\xffb", "UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewSectionPatch(tc.seen, tc.op, tc.target, tc.content, "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := NewFullReplacement(doc, doc, ""); err == nil {
		t.Fatal("an identical rewrite was accepted")
	}
	if _, err := NewFullReplacement(doc, " \n", ""); err == nil {
		t.Fatal("an empty rewrite was accepted")
	}
}

func TestRemoveAndAddPatches(t *testing.T) {
	rm := mustPatch(t, doc, "remove", "## Methods", "")
	r := Check(rm, markdown.ContentHash(doc), doc)
	got, err := r.Apply(allRows(r))
	if err != nil || got != "# Report\n\nIntro.\n\n## Results\n\nOld results.\n" {
		t.Fatalf("remove: %q %v", got, err)
	}
	add := mustPatch(t, doc, "add", "## Methods", "## Discussion\n\nTalk.\n")
	r = Check(add, markdown.ContentHash(doc), doc)
	got, err = r.Apply(allRows(r))
	if err != nil || !strings.Contains(got, "First.\n\n## Discussion\n\nTalk.\n\n## Results") {
		t.Fatalf("add after Methods (with its subsection): %q %v", got, err)
	}
}

// BenchmarkReviewLargePage reviews a section patch on a 1 MB page with 2,000 sections, as the
// proposal panel does on every save: find, patch, split the result, line up the rows.
func BenchmarkReviewLargePage(b *testing.B) {
	var s strings.Builder
	s.WriteString("# Handbook\n\n")
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&s, "## Section %d\n\n%s\n\n", i, strings.Repeat("Some words of the section body. ", 15))
	}
	page := s.String()
	e, err := NewSectionPatch(page, "", "## Section 1000", "## Section 1000\n\nNew text.\n", "")
	if err != nil {
		b.Fatal(err)
	}
	hash := markdown.ContentHash(page)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if r := Check(e, hash, page); r.Stale || len(r.Rows) != 1 {
			b.Fatal("unexpected review")
		}
	}
}
