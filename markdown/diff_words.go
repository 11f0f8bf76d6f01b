package markdown

import (
	"unicode"
	"unicode/utf8"
)

// Span is a run of a diff line's text: Changed is true for words the paired line does not have.
type Span struct {
	Text    string
	Changed bool
}

// Bounds of the word diff: longer lines, or pairs sharing too little, get no word marks (a line
// rewritten from scratch reads better without every word marked).
const (
	maxWordDiffBytes = 10_000
	// wordDiffBudget bounds the bytes of changed lines one diff marks words in: a rewrite of a
	// whole 1 MB page marks its first ~64 kB of changed lines (hundreds of lines), so its diff
	// stays fast.
	wordDiffBudget = 64 << 10
	minSharedRatio = 0.5 // unchanged bytes / bytes of the shorter line
)

// markWords gives the changed lines of h their word spans: in each run of deleted lines followed
// by inserted lines, the k-th deleted line is paired with the k-th inserted one and both are
// split into unchanged and changed runs (WordDiff), while budget (bytes of both lines, counted
// down) lasts.
func markWords(h *Hunk, budget *int) {
	lines := h.Lines
	for i := 0; i < len(lines); {
		if lines[i].Kind != LineDelete {
			i++
			continue
		}
		d := i
		for i < len(lines) && lines[i].Kind == LineDelete {
			i++
		}
		ins := i
		for i < len(lines) && lines[i].Kind == LineInsert {
			i++
		}
		for k := 0; d+k < ins && ins+k < i && *budget > 0; k++ {
			o, n := lines[d+k].Content, lines[ins+k].Content
			*budget -= len(o) + len(n)
			lines[d+k].Spans, lines[ins+k].Spans = WordDiff(o, n)
		}
	}
}

// WordDiff compares two versions of a line word by word (go-udiff's LCS over words, runs of
// white space and single punctuation marks) and returns each side as spans whose concatenation
// is that side's text; changed words separated only by white space form one span. It returns
// nil, nil when the lines are equal, longer than 10,000 bytes, or share less than half of the
// shorter one's text.
func WordDiff(old, new string) (oldSpans, newSpans []Span) {
	if old == new || len(old) > maxWordDiffBytes || len(new) > maxWordDiffBytes {
		return nil, nil
	}
	a, b := words(old), words(new)
	diffs := diffLines(a, b)
	oldChanged, newChanged := make([]bool, len(a)), make([]bool, len(b))
	shared := len(old) + len(new)
	for _, d := range diffs {
		for i := d.Start; i < d.End; i++ {
			oldChanged[i] = true
			shared -= len(a[i])
		}
		for j := d.ReplStart; j < d.ReplEnd; j++ {
			newChanged[j] = true
			shared -= len(b[j])
		}
	}
	if float64(shared/2) < minSharedRatio*float64(min(len(old), len(new))) {
		return nil, nil
	}
	return spans(a, oldChanged), spans(b, newChanged)
}

// spans joins tokens into runs of equal change; white space between two changed tokens counts as
// changed, so "blue bus" for "red car" is one mark.
func spans(tokens []string, changed []bool) []Span {
	for i := 1; i+1 < len(tokens); i++ {
		if !changed[i] && changed[i-1] && isSpace(tokens[i]) {
			j := i
			for j < len(tokens) && !changed[j] && isSpace(tokens[j]) {
				j++
			}
			if j < len(tokens) && changed[j] {
				for k := i; k < j; k++ {
					changed[k] = true
				}
			}
		}
	}
	var out []Span
	for i, t := range tokens {
		if n := len(out); n > 0 && out[n-1].Changed == changed[i] {
			out[n-1].Text += t
			continue
		}
		out = append(out, Span{Text: t, Changed: changed[i]})
	}
	return out
}

// words splits s into runs of letters and digits, runs of white space, and single other runes.
func words(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		j := i + n
		switch {
		case isWordRune(r):
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !isWordRune(r2) {
					break
				}
				j += n2
			}
		case unicode.IsSpace(r):
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !unicode.IsSpace(r2) {
					break
				}
				j += n2
			}
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func isSpace(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return unicode.IsSpace(r)
}
