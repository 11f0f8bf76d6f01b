package markdown

import "strings"

// ApplyHunks returns old with only the hunks of d (a diff of old against some new text, from
// LineDiff or LineDiffContext) that chosen picks applied, by index into d.Hunks: a chosen hunk
// reads as its new side (context and inserted lines), any other as its old side (context and
// deleted lines); lines outside the hunks stay as they are. Every line keeps its own ending, so
// choosing every hunk gives the new text and choosing none gives old, byte for byte.
func ApplyHunks(old string, d Diff, chosen func(hunk int) bool) string {
	lines := splitLinesKeepEOL(old)
	var b strings.Builder
	b.Grow(len(old))
	next := 0 // the next old line to copy
	for k, h := range d.Hunks {
		first := h.OldStart - 1 // 0-based index of the hunk's first old line
		if h.OldCount == 0 {
			first = h.OldStart // an insertion after line OldStart
		}
		for ; next < first && next < len(lines); next++ {
			b.WriteString(lines[next])
		}
		take := chosen(k)
		for _, l := range h.Lines {
			if l.Kind == LineEqual || (l.Kind == LineInsert) == take {
				b.WriteString(l.Content + l.EOL)
			}
		}
		next = first + h.OldCount
	}
	for ; next < len(lines); next++ {
		b.WriteString(lines[next])
	}
	return b.String()
}
