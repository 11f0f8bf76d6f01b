package markdown

import (
	"reflect"
	"strings"
	"testing"
)

// marked writes spans with the changed runs in brackets.
func marked(spans []Span) string {
	var b strings.Builder
	for _, s := range spans {
		if s.Changed {
			b.WriteString("[" + s.Text + "]")
		} else {
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

// WordDiff marks whole words (never parts of one), joins changed words separated by spaces into
// one mark, keeps each side's text exactly, and leaves lines rewritten from scratch unmarked.
func TestWordDiffMarksTheChangedWords(t *testing.T) {
	for _, c := range []struct{ old, new, wantOld, wantNew string }{
		{"Writers need to understand what changed.", "Writers need to see what changed.",
			"Writers need to [understand] what changed.", "Writers need to [see] what changed."},
		{"The red car stops.", "The blue bus stops.", "The [red car] stops.", "The [blue bus] stops."},
		{"colour, please", "color, please", "[colour], please", "[color], please"},
		{"- Export to CSV.", "- Export to CSV and JSON.", "- Export to CSV.", "- Export to CSV[ and JSON]."},
		{"Café au lait", "Café crème au lait", "Café au lait", "Café [crème ]au lait"},
		{"one two three", "four five six", "", ""}, // nothing shared: no marks
	} {
		o, n := WordDiff(c.old, c.new)
		if marked(o) != c.wantOld || marked(n) != c.wantNew {
			t.Errorf("%q → %q: %q / %q, want %q / %q", c.old, c.new, marked(o), marked(n), c.wantOld, c.wantNew)
		}
		if o != nil && (joinSpans(o) != c.old || joinSpans(n) != c.new) {
			t.Errorf("%q → %q: the spans do not add up to the lines", c.old, c.new)
		}
	}
}

func joinSpans(spans []Span) string {
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(s.Text)
	}
	return b.String()
}

// In a hunk, the k-th deleted line of a run pairs with the k-th inserted one; lines left over
// and context lines carry no spans.
func TestLineDiffPairsChangedLinesForWordMarks(t *testing.T) {
	d := LineDiff("a\nThe red car.\nOld line two.\nb\n", "a\nThe blue car.\nOld line 2.\nAn added line.\nb\n")
	var got []string
	for _, l := range d.Hunks[0].Lines {
		got = append(got, l.Kind.String()+" "+marked(l.Spans))
	}
	want := []string{"equal ", "delete The [red] car.", "delete Old line [two].", "insert The [blue] car.", "insert Old line [2].", "insert ", "equal "}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}
