package pages

import (
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"

	"parley/fault"
	"parley/markdown"
)

// Review is how a proposal reads against the page as it is now: what accepting it would write and
// the diff that shows it. When Stale is true it cannot be accepted and Reason says why.
type Review struct {
	Stale  bool
	Reason string
	// Note explains a proposal that still applies although the page changed (a merge, or a patch
	// whose section is untouched).
	Note string
	// Proposed is the content that accepting the whole proposal writes.
	Proposed string
	// Unchanged is true when the page already reads as proposed.
	Unchanged bool
	// Diff is current → Proposed.
	Diff markdown.Diff
	// Rows are what can be accepted on its own: the changed sections of a section patch, or the
	// hunks of a full replacement's Diff (row i is Diff.Hunks[i]).
	Rows []Row
	// Hunks is true when Rows are the hunks of a full replacement.
	Hunks bool
	// Warning, when set, tells what accepting the whole proposal would break that the diff does
	// not show (link reference definitions the rest of the page still uses).
	Warning string

	plan           []piece
	prefix, suffix string
	eol            string
	current        string
}

// Row is one part of a proposal the person can accept on its own: a changed section of a section
// patch (Label is the heading, or "(preamble)"; Change "changed", "new" or "removed") or a hunk
// of a full replacement (Label names its lines, e.g. "Lines 12–15"; Change "changed", "new" or
// "removed"), with its line diff.
type Row struct {
	Index  int
	Label  string
	Change string
	Diff   markdown.Diff
}

// piece is one unit of the changed span: unchanged (row -1), a change of trailing blank lines only
// (row -2: applied with any selection, never shown as a row) or a row's old and new text.
type piece struct {
	old, new string
	row      int
}

const (
	unchanged  = -1
	blankLines = -2
)

// Check reviews edit e, whose assistant saw content hashing to originalHash, against current.
//
// A full replacement of an unchanged page proposes its content; when the page changed since, it
// proposes the clean three-way merge of the assistant's base, the current page and its content,
// and is stale when the two overlap. A section patch applies to the current page while its target
// section is still there, alone, and unchanged; edits elsewhere do not matter.
func Check(e Edit, originalHash, current string) Review {
	var r Review
	switch e.Mode {
	case FullReplacement:
		r.Proposed = e.Content
		if originalHash != "" && markdown.ContentHash(current) != originalHash {
			merged, ok := Merge3(e.BaseContent, current, e.Content)
			if !ok {
				return Review{Stale: true, Reason: "The page changed since this rewrite was proposed, and the changes overlap with it."}
			}
			r.Proposed = merged
			r.Note = "The page changed since this rewrite was proposed; your changes are merged into it."
		}
		r.Unchanged = r.Proposed == current
		r.Diff = markdown.LineDiff(current, r.Proposed)
		r.Rows, r.Hunks, r.current = hunkRows(r.Diff), true, current
		r.Warning = referencesWarning(current, r.Proposed)
		return r
	case SectionPatch:
		o := markdown.Split(current)
		if e.Operation != OpAdd || e.Target != "" {
			i, err := o.Find(e.Target)
			if err != nil {
				return Review{Stale: true, Reason: staleFind(err, e.Target)}
			}
			if e.Operation != OpAdd && e.TargetHash != "" && markdown.ContentHash(o.Content(i)) != e.TargetHash {
				return Review{Stale: true, Reason: fmt.Sprintf("The section %q was edited since this change was proposed.", label(e.Target))}
			}
		}
		proposed, err := e.patch(current)
		if err != nil {
			return Review{Stale: true, Reason: "The patch no longer fits the page: " + fault.As(sectionFault(err, o)).Message + "."}
		}
		if originalHash != "" && markdown.ContentHash(current) != originalHash {
			r.Note = "The page changed elsewhere since; this section is untouched, so the patch still applies."
		}
		r.Proposed = proposed
		r.Unchanged = proposed == current
		r.plan, r.prefix, r.suffix, r.Rows = sectionRows(o, markdown.Split(proposed))
		r.eol = markdown.LineEnding(current)
		r.Warning = referencesWarning(current, proposed)
		return r
	}
	return Review{Stale: true, Reason: "This proposal is damaged and cannot be applied."}
}

// referencesWarning says which link reference definitions the change removes while the page
// still uses them ("" when none).
func referencesWarning(current, proposed string) string {
	labels := markdown.BrokenReferences(current, proposed)
	if len(labels) == 0 {
		return ""
	}
	quoted := make([]string, len(labels))
	for i, l := range labels {
		quoted[i] = "[" + l + "]"
	}
	what := "the link definition " + quoted[0] + ", which the page still uses"
	if len(quoted) > 1 {
		what = "the link definitions " + strings.Join(quoted[:len(quoted)-1], ", ") + " and " + quoted[len(quoted)-1] + ", which the page still uses"
	}
	return "Accepting all of this removes " + what + ": those links would show as plain text."
}

func staleFind(err error, target string) string {
	if strings.Contains(err.Error(), markdown.ErrSectionAmbiguous.Error()) {
		return fmt.Sprintf("The heading %q now matches several sections.", label(target))
	}
	return fmt.Sprintf("The section %q is no longer in the page.", label(target))
}

func label(target string) string {
	if target == "" {
		return "(preamble)"
	}
	return target
}

// ErrNothingSelected is Apply's error when no row of a proposal is selected.
var ErrNothingSelected = fault.Field("rows", "Select at least one change to apply.")

// Apply returns the content accepting the review writes: the current page with only the selected
// rows (indexes into Rows: sections of a section patch, hunks of a full replacement) changed, each
// exactly as its diff shows; every row gives Proposed. A stale review is a fault.Conflict with its
// reason; an empty selection is ErrNothingSelected; an index that is not a row is fault.Invalid.
func (r Review) Apply(selected []int) (string, error) {
	if r.Stale {
		return "", &fault.Error{Code: fault.Conflict, Message: r.Reason}
	}
	if len(r.Rows) == 0 || (r.plan == nil && !r.Hunks) {
		return r.Proposed, nil
	}
	chosen := map[int]bool{}
	for _, i := range selected {
		if i < 0 || i >= len(r.Rows) {
			return "", fault.Field("rows", "A selected change is not part of this proposal; reload and try again.")
		}
		chosen[i] = true
	}
	if len(chosen) == 0 {
		return "", ErrNothingSelected
	}
	if r.Hunks {
		return markdown.ApplyHunks(r.current, r.Diff, func(k int) bool { return chosen[k] }), nil
	}
	var b strings.Builder
	b.WriteString(r.prefix)
	var parts []string
	for _, p := range r.plan {
		text := p.old
		if p.row == blankLines || p.row >= 0 && chosen[p.row] {
			text = p.new
		}
		if text != "" {
			parts = append(parts, text)
		}
	}
	if r.suffix != "" {
		parts = append(parts, r.suffix)
	}
	for i, t := range parts {
		b.WriteString(t)
		if i < len(parts)-1 && !strings.HasSuffix(t, "\n") && !strings.HasSuffix(t, "\r") {
			b.WriteString(r.eol + r.eol) // a section that ended the document is no longer last
		}
	}
	return b.String(), nil
}

// hunkRows makes each hunk of d a row: its lines ("Line 4", "Lines 12–15" of the current page,
// "After line 9" for lines only added) and its own diff.
func hunkRows(d markdown.Diff) []Row {
	rows := make([]Row, len(d.Hunks))
	for k, h := range d.Hunks {
		one := markdown.Diff{Hunks: []markdown.Hunk{h}}
		for _, l := range h.Lines {
			switch l.Kind {
			case markdown.LineInsert:
				one.Adds++
			case markdown.LineDelete:
				one.Dels++
			}
		}
		change := "changed"
		switch {
		case one.Dels == 0:
			change = "new"
		case one.Adds == 0:
			change = "removed"
		}
		rows[k] = Row{Index: k, Label: hunkLabel(h), Change: change, Diff: one}
	}
	return rows
}

// hunkLabel names the current page's lines a hunk deletes or replaces ("Line 4", "Lines 12–15"),
// or, for a hunk that only adds lines, where they go ("After line 9", "At the start").
func hunkLabel(h markdown.Hunk) string {
	first, last, before := 0, 0, 0
	changed := false
	for _, l := range h.Lines {
		switch l.Kind {
		case markdown.LineDelete:
			if first == 0 {
				first = l.OldLine
			}
			last = l.OldLine
		case markdown.LineEqual:
			if !changed {
				before = l.OldLine // the context line just before the first change
			}
		}
		changed = changed || l.Kind != markdown.LineEqual
	}
	if before == 0 && !changed {
		before = h.OldStart
	}
	switch {
	case first == 0 && before == 0:
		return "At the start"
	case first == 0:
		return fmt.Sprintf("After line %d", before)
	case first == last:
		return fmt.Sprintf("Line %d", first)
	}
	return fmt.Sprintf("Lines %d–%d", first, last)
}

// unit is a section's own text (heading and body, without subsections) or the preamble.
type unit struct {
	key, label, text string
}

func units(o markdown.Outline) []unit {
	var out []unit
	if o.Preamble != "" {
		out = append(out, unit{key: "0", label: "(preamble)", text: o.Preamble})
	}
	for _, s := range o.Sections {
		out = append(out, unit{
			key:   fmt.Sprintf("%d %s", s.Level, strings.ToLower(s.Title)),
			label: strings.Repeat("#", s.Level) + " " + s.Title,
			text:  s.Heading + s.Body,
		})
	}
	return out
}

// sectionRows lines the sections of current and proposed up: the unchanged sections at both ends
// become prefix and suffix. In between, sections whose text is the same (up to trailing blank
// lines) are matched first, so a section the patch did not touch is never paired with a new one
// that shares its heading (an added "# B" is its own row beside an existing "# B"). In each run
// between such matches, sections are matched by level and title (in order): a matched pair with
// different text is a "changed" row, unmatched ones are "removed" or "new" rows, except that a
// removed section directly replaced by a new one is one "changed" row (a rename). Joining prefix,
// the old (or new) text of every piece and suffix gives current (or proposed) back exactly.
func sectionRows(current, proposed markdown.Outline) ([]piece, string, string, []Row) {
	a, b := units(current), units(proposed)
	lo := 0
	for lo < len(a) && lo < len(b) && a[lo].text == b[lo].text {
		lo++
	}
	hi := 0
	for hi < len(a)-lo && hi < len(b)-lo && a[len(a)-1-hi].text == b[len(b)-1-hi].text {
		hi++
	}
	join := func(us []unit) string {
		var s strings.Builder
		for _, u := range us {
			s.WriteString(u.text)
		}
		return s.String()
	}
	prefix, suffix := join(a[:lo]), join(a[len(a)-hi:])
	ma, mb := a[lo:len(a)-hi], b[lo:len(b)-hi]
	var plan []piece
	var rows []Row
	addRow := func(change string, old, new unit) {
		if change == "changed" && trimmed(old) == trimmed(new) {
			plan = append(plan, piece{old: old.text, new: new.text, row: blankLines})
			return
		}
		l := new.label
		if change == "removed" {
			l = old.label
		}
		rows = append(rows, Row{Index: len(rows), Label: l, Change: change, Diff: markdown.LineDiff(old.text, new.text)})
		plan = append(plan, piece{old: old.text, new: new.text, row: len(rows) - 1})
	}
	same := func(x, y unit) {
		if x.text == y.text {
			plan = append(plan, piece{old: x.text, new: y.text, row: unchanged})
		} else {
			addRow("changed", x, y)
		}
	}
	// byTitle lines up a run of sections with no identical text on the other side.
	byTitle := func(ma, mb []unit) {
		ka, kb := make([]string, len(ma)), make([]string, len(mb))
		for i, u := range ma {
			ka[i] = u.key
		}
		for i, u := range mb {
			kb[i] = u.key
		}
		i, j := 0, 0
		for _, d := range lcs.DiffLines(ka, kb) {
			for i < d.Start {
				same(ma[i], mb[j])
				i, j = i+1, j+1
			}
			for i < d.End && j < d.ReplEnd {
				addRow("changed", ma[i], mb[j])
				i, j = i+1, j+1
			}
			for ; i < d.End; i++ {
				addRow("removed", ma[i], unit{})
			}
			for ; j < d.ReplEnd; j++ {
				addRow("new", unit{}, mb[j])
			}
		}
		for i < len(ma) {
			same(ma[i], mb[j])
			i, j = i+1, j+1
		}
	}
	ta, tb := make([]string, len(ma)), make([]string, len(mb))
	for i, u := range ma {
		ta[i] = trimmed(u)
	}
	for i, u := range mb {
		tb[i] = trimmed(u)
	}
	i, j := 0, 0
	for _, d := range lcs.DiffLines(ta, tb) {
		for i < d.Start {
			same(ma[i], mb[j])
			i, j = i+1, j+1
		}
		byTitle(ma[d.Start:d.End], mb[d.ReplStart:d.ReplEnd])
		i, j = d.End, d.ReplEnd
	}
	for i < len(ma) {
		same(ma[i], mb[j])
		i, j = i+1, j+1
	}
	return plan, prefix, suffix, rows
}

// trimmed is a unit's text without trailing blank space: two units saying the same thing compare
// equal whatever blank lines separate them from the next section.
func trimmed(u unit) string { return strings.TrimRight(u.text, " \t\r\n") }
