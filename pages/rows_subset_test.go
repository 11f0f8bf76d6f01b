package pages

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"parley/markdown"
)

// trimmedUnits lists the own text of every section (and the preamble) of doc, trailing blank
// lines trimmed, sorted: the multiset of what the page says.
func trimmedUnits(doc string) []string {
	var out []string
	for _, u := range units(markdown.Split(doc)) {
		out = append(out, strings.TrimRight(u.text, " \t\r\n"))
	}
	sort.Strings(out)
	return out
}

// untouched lists the units of doc outside the section the operation targets (for an add:
// every unit).
func untouched(t *testing.T, doc string, e Edit) []string {
	t.Helper()
	if e.Operation == OpAdd {
		return trimmedUnits(doc)
	}
	o := markdown.Split(doc)
	i, err := o.Find(e.Target)
	if err != nil {
		t.Fatal(err)
	}
	s := o.Sections[i]
	return trimmedUnits(doc[:s.Start] + doc[s.End:])
}

// contains reports whether multiset sub (sorted) is within multiset all (sorted).
func contains(all, sub []string) bool {
	count := map[string]int{}
	for _, s := range all {
		count[s]++
	}
	for _, s := range sub {
		if count[s] == 0 {
			return false
		}
		count[s]--
	}
	return true
}

// For every subset of a section patch's rows, applying it changes only the section the patch
// targets (or only adds, for an add): no other section is overwritten or lost, whatever the
// headings' duplicates; applying every row gives the proposed text; an add is its own row(s).
func TestEverySubsetOfRowsAppliesOnlyThoseOperations(t *testing.T) {
	docs := []string{
		"# A\n\nalpha\n\n# B\n\nbeta\n",
		"# A\n\nalpha\n\n# B\n\nbeta",
		"intro\n\n# A\n\nalpha\n\n## B\n\nbeta\n\n# B\n\ngamma\n\n## A\n\ndelta\n",
		"# Notes\n\n## Fixes\n\none\n\n# Later\n\n## Fixes\n\ntwo\n",
	}
	type op struct{ op, target, content string }
	ops := []op{
		{OpAdd, "", "# B\n\ndup\n"},
		{OpAdd, "", "# A\n\nalpha\n"},
		{OpAdd, "", "## Fixes\n\nthree\n\n## B\n\nnew b\n"},
		{OpAdd, "# A", "# B\n\ndup\n"},
		{OpReplace, "# A", "# B\n\nbeta\n\n# A\n\nalpha two\n"},
		{OpReplace, "# A", "# A\n\nalpha\n\nmore\n"},
		{OpRemove, "# A", ""},
	}
	for di, doc := range docs {
		for oi, o := range ops {
			if o.target != "" {
				if _, err := markdown.Split(doc).Find(o.target); err != nil {
					continue
				}
			}
			// A patch the engine refuses for this document (e.g. a section added under a
			// heading that already exists) has no rows to pick; refusals are tested elsewhere.
			e, err := NewSectionPatch(doc, o.op, o.target, o.content, "")
			if err != nil {
				continue
			}
			t.Run(fmt.Sprintf("doc%d-op%d", di, oi), func(t *testing.T) {
				r := Check(e, markdown.ContentHash(doc), doc)
				if r.Stale {
					t.Fatal(r.Reason)
				}
				if all, err := r.Apply(allRows(r)); err != nil || all != r.Proposed {
					t.Fatalf("all rows = %q, %v; proposed %q", all, err, r.Proposed)
				}
				keep := untouched(t, doc, e)
				for mask := 1; mask < 1<<len(r.Rows); mask++ {
					var picked []int
					for i := range r.Rows {
						if mask&(1<<i) != 0 {
							picked = append(picked, i)
						}
					}
					got, err := r.Apply(picked)
					if err != nil {
						t.Fatalf("rows %v: %v", picked, err)
					}
					if !contains(trimmedUnits(got), keep) {
						t.Fatalf("rows %v of %+v overwrite a section the patch does not target:\n%q\n→ %q", picked, r.Rows, doc, got)
					}
				}
				if e.Operation == OpAdd {
					for _, row := range r.Rows {
						if row.Change != "new" {
							t.Fatalf("an add shows a %q row %q", row.Change, row.Label)
						}
					}
				}
			})
		}
	}
}
