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
	// Diff is current → Proposed (shown for a full replacement).
	Diff markdown.Diff
	// Rows are the changed sections of a section patch, each selectable on its own.
	Rows []Row

	plan           []piece
	prefix, suffix string
	eol            string
}

// Row is one changed section of a section patch: its label (the heading, or "(preamble)"), the
// change ("changed", "new", "removed") and its line diff.
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
		return r
	}
	return Review{Stale: true, Reason: "This proposal is damaged and cannot be applied."}
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

// ErrNothingSelected is Apply's error when no row of a section patch is selected.
var ErrNothingSelected = fault.Field("rows", "Select at least one section to apply.")

// Apply returns the content accepting the review writes: Proposed for a full replacement, and for
// a section patch the current page with only the selected rows (indexes into Rows) changed, each
// exactly as its diff shows. A stale review is a fault.Conflict with its reason.
func (r Review) Apply(selected []int) (string, error) {
	if r.Stale {
		return "", &fault.Error{Code: fault.Conflict, Message: r.Reason}
	}
	if r.plan == nil || len(r.Rows) == 0 {
		return r.Proposed, nil
	}
	chosen := map[int]bool{}
	for _, i := range selected {
		if i < 0 || i >= len(r.Rows) {
			return "", fault.Field("rows", "A selected section is not part of this proposal; reload and try again.")
		}
		chosen[i] = true
	}
	if len(chosen) == 0 {
		return "", ErrNothingSelected
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
