package markdown

import (
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// LineKind says what a diff line does.
type LineKind int

// The kinds of diff line.
const (
	LineEqual  LineKind = iota // in both texts (context)
	LineInsert                 // only in the new text
	LineDelete                 // only in the old text
)

// String returns "equal", "insert" or "delete".
func (k LineKind) String() string {
	switch k {
	case LineInsert:
		return "insert"
	case LineDelete:
		return "delete"
	default:
		return "equal"
	}
}

// DiffLine is one line of a hunk.
type DiffLine struct {
	Kind LineKind
	// Content is the line's text without its line ending.
	Content string
	// EOL is the line's ending: "\n", "\r\n", "\r", or "" for a last line
	// without one (shown as "\ No newline at end of file"). Two lines
	// differing only in EOL are a delete and an insert.
	EOL string
	// OldLine and NewLine are 1-based line numbers in the old and new
	// text; 0 on the side the line is not in.
	OldLine, NewLine int
	// Spans split Content into unchanged and changed words when the line
	// is a deleted or inserted line paired with one on the other side
	// (see WordDiff); nil otherwise.
	Spans []Span
}

// Hunk is a run of changed lines with their context, as in a unified diff.
type Hunk struct {
	// OldStart/OldCount and NewStart/NewCount are the hunk's line ranges
	// (1-based). A zero count has its start on the line before, as GNU
	// diff writes it ("-0,0" for an empty old text).
	OldStart, OldCount int
	NewStart, NewCount int
	// Header is the "@@ -l,c +l,c @@" line, without a line ending.
	Header string
	Lines  []DiffLine
}

// Diff is a line diff ready for a view: hunks plus how many lines were
// added and deleted. A Diff with no hunks means the texts are equal.
type Diff struct {
	Hunks []Hunk
	Adds  int // lines only in the new text
	Dels  int // lines only in the old text
}

// Equal reports whether the two texts had no differences.
func (d Diff) Equal() bool { return len(d.Hunks) == 0 }

// DefaultContextLines is the number of unchanged lines LineDiff and
// Unified show around each change.
const DefaultContextLines = 3

// LineDiff compares old and new line by line (go-udiff's LCS), with
// DefaultContextLines of context. Lines end at "\n", "\r\n" or a lone "\r"
// and are compared with their endings, so normalise both sides with
// NormalizeLineEndings first when only the text matters.
func LineDiff(old, new string) Diff {
	return LineDiffContext(old, new, DefaultContextLines)
}

// LineDiffContext is LineDiff with context lines of context around each
// change; a negative context puts every line of both texts into one hunk
// (useful to show a whole section).
func LineDiffContext(old, new string, context int) Diff {
	var d Diff
	if old == new {
		return d
	}
	a, b := splitLinesKeepEOL(old), splitLinesKeepEOL(new)
	if context < 0 {
		context = max(len(a), len(b))
	}
	// Walk the changes, emitting only the lines of hunks: each change with up to context
	// unchanged lines either side; changes at most 2×context lines apart share a hunk.
	i, j := 0, 0 // the next line of each text
	var h *Hunk
	budget := wordDiffBudget
	line := func(kind LineKind, text string) {
		l := DiffLine{Kind: kind}
		l.Content, l.EOL = cutEOL(text)
		switch kind {
		case LineEqual:
			i, j = i+1, j+1
			l.OldLine, l.NewLine = i, j
			h.OldCount++
			h.NewCount++
		case LineDelete:
			i++
			l.OldLine = i
			h.OldCount++
			d.Dels++
		case LineInsert:
			j++
			l.NewLine = j
			h.NewCount++
			d.Adds++
		}
		h.Lines = append(h.Lines, l)
	}
	equal := func(n int) {
		for range n {
			line(LineEqual, a[i])
		}
	}
	finish := func() {
		if h.OldCount == 0 {
			h.OldStart--
		}
		if h.NewCount == 0 {
			h.NewStart--
		}
		h.Header = fmt.Sprintf("@@ -%s +%s @@", hunkRange(h.OldStart, h.OldCount), hunkRange(h.NewStart, h.NewCount))
		markWords(h, &budget)
		d.Hunks = append(d.Hunks, *h)
	}
	for _, c := range diffLines(a, b) {
		gap := c.Start - i
		if h != nil && gap <= 2*context {
			equal(gap)
		} else {
			if h != nil {
				equal(context)
				finish()
			}
			skip := max(c.Start-context-i, 0)
			i, j = i+skip, j+skip
			h = &Hunk{OldStart: i + 1, NewStart: j + 1}
			equal(c.Start - i)
		}
		for i < c.End {
			line(LineDelete, a[i])
		}
		for j < c.ReplEnd {
			line(LineInsert, b[j])
		}
	}
	if h != nil {
		equal(min(context, len(a)-i))
		finish()
	}
	return d
}

func hunkRange(start, count int) string {
	if count == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}

func cutEOL(line string) (content, eol string) {
	content = trimEOL(line)
	return content, line[len(content):]
}

// Unified returns the unified diff of old and new ("--- oldLabel",
// "+++ newLabel", hunks with DefaultContextLines of context), or "" when
// they are equal. It is built from LineDiff, so it shows exactly what the
// structured diff shows. Lines keep their own endings (CRLF stays CRLF);
// a last line without one is followed by "\ No newline at end of file".
func Unified(oldLabel, newLabel, old, new string) string {
	d := LineDiff(old, new)
	if d.Equal() {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldLabel, newLabel)
	for _, h := range d.Hunks {
		b.WriteString(h.Header)
		b.WriteByte('\n')
		for _, l := range h.Lines {
			switch l.Kind {
			case LineInsert:
				b.WriteByte('+')
			case LineDelete:
				b.WriteByte('-')
			default:
				b.WriteByte(' ')
			}
			b.WriteString(l.Content)
			switch {
			case l.EOL == "":
				b.WriteString("\n\\ No newline at end of file\n")
			case strings.HasSuffix(l.EOL, "\n"):
				b.WriteString(l.EOL)
			default: // a lone CR cannot end a unified-diff line
				b.WriteString(l.EOL + "\n")
			}
		}
	}
	return b.String()
}

// diffLines is lcs.DiffLines after setting aside the lines both texts start and end with, so a
// small edit of a long page costs a scan, not a search over every line.
func diffLines(a, b []string) []lcs.Diff {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	q := 0
	for q < len(a)-p && q < len(b)-p && a[len(a)-1-q] == b[len(b)-1-q] {
		q++
	}
	diffs := lcs.DiffLines(a[p:len(a)-q], b[p:len(b)-q])
	for i := range diffs {
		diffs[i].Start += p
		diffs[i].End += p
		diffs[i].ReplStart += p
		diffs[i].ReplEnd += p
	}
	return diffs
}
