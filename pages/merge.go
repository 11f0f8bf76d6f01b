package pages

import (
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// Merge3 merges two edits of base line by line, as diff3 does: mine and theirs both started from
// base; a region changed on one side only takes that side, a region changed identically on both
// takes it once. It returns the merged text and true, or "" and false when the two sides change the
// same or touching lines differently (a conflict). Lines keep their own endings.
func Merge3(base, mine, theirs string) (string, bool) {
	if mine == theirs {
		return mine, true
	}
	if base == mine {
		return theirs, true
	}
	if base == theirs {
		return mine, true
	}
	b, m, t := splitLines(base), splitLines(mine), splitLines(theirs)
	hm, ht := lcs.DiffLines(b, m), lcs.DiffLines(b, t)
	var out strings.Builder
	pos := 0 // next base line to copy
	i, j := 0, 0
	for i < len(hm) || j < len(ht) {
		// The next group: overlapping changes from both sides, grown until it stops overlapping.
		var start, end int
		var gm, gt []lcs.Diff
		switch {
		case j >= len(ht) || (i < len(hm) && hm[i].Start <= ht[j].Start):
			start, end = hm[i].Start, hm[i].End
			gm, i = append(gm, hm[i]), i+1
		default:
			start, end = ht[j].Start, ht[j].End
			gt, j = append(gt, ht[j]), j+1
		}
		for grown := true; grown; {
			grown = false
			if i < len(hm) && overlaps(hm[i], start, end) {
				end = max(end, hm[i].End)
				gm, i, grown = append(gm, hm[i]), i+1, true
			}
			if j < len(ht) && overlaps(ht[j], start, end) {
				end = max(end, ht[j].End)
				gt, j, grown = append(gt, ht[j]), j+1, true
			}
		}
		writeLines(&out, b[pos:start])
		pos = end
		switch {
		case len(gt) == 0:
			writeLines(&out, side(b, m, gm, start, end))
		case len(gm) == 0:
			writeLines(&out, side(b, t, gt, start, end))
		default:
			sm, st := side(b, m, gm, start, end), side(b, t, gt, start, end)
			if strings.Join(sm, "") != strings.Join(st, "") {
				return "", false
			}
			writeLines(&out, sm)
		}
	}
	writeLines(&out, b[pos:])
	return out.String(), true
}

// MergeTitle merges two edits of a page title as Merge3 merges lines: the side that changed it
// wins; when both did, mine does.
func MergeTitle(base, mine, theirs string) string {
	if mine == base {
		return theirs
	}
	return mine
}

// overlaps reports whether change d touches the base region [start, end): it shares a line with
// it, or an insertion sits at or inside it, or the region is an insertion at d's edge.
func overlaps(d lcs.Diff, start, end int) bool {
	if d.Start == d.End || start == end {
		return d.Start <= end && start <= d.End
	}
	return d.Start < end && start < d.End
}

// side returns what one side made of base[start:end] given its changes inside that region.
func side(base, other []string, changes []lcs.Diff, start, end int) []string {
	var out []string
	pos := start
	for _, d := range changes {
		out = append(out, base[pos:d.Start]...)
		out = append(out, other[d.ReplStart:d.ReplEnd]...)
		pos = d.End
	}
	return append(out, base[pos:end]...)
}

func writeLines(b *strings.Builder, lines []string) {
	for _, l := range lines {
		b.WriteString(l)
	}
}

// splitLines cuts s into lines that keep their endings ("\n", "\r\n" or a lone "\r"); the last
// may have none. Joining them gives s back.
func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			out = append(out, s[start:i+1])
			start = i + 1
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
