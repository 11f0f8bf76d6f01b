package pages

import (
	"slices"
	"strings"
	"testing"
)

func TestSummarizeRevisionCountsLinesAndNamesTouchedSections(t *testing.T) {
	const doc = "Intro.\n\n## Methods\n\nOld methods.\n\n## Results\n\nOld results.\n\n## Notes\n\nA.\n\n## Notes\n\nB.\n"
	for _, tc := range []struct {
		name, old, new string
		adds, dels     int
		sections       []string
	}{
		{"unchanged", doc, doc, 0, 0, nil},
		{"first revision", "", "# T\n\nx\n", 3, 0, []string{"T"}},
		{"one section edited", doc, replace(doc, "Old results.", "New results."), 1, 1, []string{"Results"}},
		{"the text before the first heading", doc, replace(doc, "Intro.", "Hello."), 1, 1, []string{TopOfPage}},
		{"a heading renamed", doc, replace(doc, "## Methods", "## Approach"), 1, 1, []string{"Approach", "Methods"}},
		{"the second of two same-titled sections", doc, replace(doc, "B.", "C."), 1, 1, []string{"Notes"}},
		{"a section removed", doc, replace(doc, "## Results\n\nOld results.\n\n", ""), 0, 4, []string{"Results"}},
		{"a section added", doc, doc + "\n## More\n\nz\n", 4, 0, []string{"More"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := SummarizeRevision(tc.old, tc.new)
			if s.Adds != tc.adds || s.Dels != tc.dels || !slices.Equal(s.Sections, tc.sections) {
				t.Fatalf("got +%d −%d %q, want +%d −%d %q", s.Adds, s.Dels, s.Sections, tc.adds, tc.dels, tc.sections)
			}
		})
	}
}

func TestSummarizeRevisionNamesAtMostTwelveSections(t *testing.T) {
	old, new := "", ""
	for i := range 20 {
		old += "## S" + string(rune('a'+i)) + "\n\nold\n\n"
		new += "## S" + string(rune('a'+i)) + "\n\nnew\n\n"
	}
	s := SummarizeRevision(old, new)
	if len(s.Sections) != 12 || s.Sections[11] != "(9 more)" || s.Sections[0] != "Sa" {
		t.Fatalf("sections %q", s.Sections)
	}
}

func replace(s, old, new string) string {
	if !strings.Contains(s, old) {
		panic("no " + old)
	}
	return strings.Replace(s, old, new, 1)
}
