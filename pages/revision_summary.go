package pages

import (
	"strconv"
	"strings"

	"parley/markdown"
)

// RevisionSummary says what a revision changed against the revision before it, for the revisions
// panel's rows: lines added and removed, and the titles of the sections whose text it added,
// changed or removed, in page order (new sections and edited ones first, removed ones after).
type RevisionSummary struct {
	Adds, Dels int
	Sections   []string
}

// maxSummarySections bounds the sections a summary names; "(N more)" stands for the rest.
const maxSummarySections = 12

// TopOfPage names the text before a page's first heading in a summary.
const TopOfPage = "(top of the page)"

// SummarizeRevision compares a revision's content with the one before ("" for the first). A
// section is the same in both when its heading line and body are; sections are matched by level,
// title and their occurrence among sections of that title, so a duplicated title is not confused.
func SummarizeRevision(old, new string) RevisionSummary {
	d := markdown.LineDiff(old, new)
	s := RevisionSummary{Adds: d.Adds, Dels: d.Dels}
	if d.Equal() {
		return s
	}
	a, b := markdown.Split(old), markdown.Split(new)
	if a.Preamble != b.Preamble {
		s.Sections = append(s.Sections, TopOfPage)
	}
	before := map[string]string{}
	for k, sec := range sectionKeys(a) {
		before[k] = sectionText(sec)
	}
	seen := map[string]bool{}
	for k, sec := range sectionKeys(b) {
		seen[k] = true
		if text, ok := before[k]; !ok || text != sectionText(sec) {
			s.Sections = append(s.Sections, sec.Title)
		}
	}
	for k, sec := range sectionKeys(a) {
		if !seen[k] {
			s.Sections = append(s.Sections, sec.Title)
		}
	}
	if n := len(s.Sections); n > maxSummarySections {
		s.Sections = append(s.Sections[:maxSummarySections-1], "("+strconv.Itoa(n-maxSummarySections+1)+" more)")
	}
	return s
}

// sectionText is what a section says: its heading and body without the blank lines that end it (a
// section added after it changes only those).
func sectionText(sec markdown.Section) string {
	return sec.Heading + strings.TrimRight(sec.Body, " \t\r\n")
}

// sectionKeys yields the outline's sections in order with a key naming each: level, title and
// occurrence of that level and title.
func sectionKeys(o markdown.Outline) func(yield func(string, markdown.Section) bool) {
	return func(yield func(string, markdown.Section) bool) {
		count := map[string]int{}
		for _, sec := range o.Sections {
			base := strconv.Itoa(sec.Level) + " " + sec.Title
			count[base]++
			if !yield(base+" #"+strconv.Itoa(count[base]), sec) {
				return
			}
		}
	}
}
