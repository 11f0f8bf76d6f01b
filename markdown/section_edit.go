package markdown

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Errors of the section operations. They come wrapped in a *SectionError
// that names the target; test with errors.Is.
var (
	// ErrSectionNotFound: no heading matches the target.
	ErrSectionNotFound = errors.New("section not found")
	// ErrSectionAmbiguous: several headings match the target (and their
	// levels do not settle it). Nothing is changed: never a double replace.
	ErrSectionAmbiguous = errors.New("heading matches more than one section")
	// ErrNoHeading: content for InsertSection or AppendSection does not
	// start with a heading.
	ErrNoHeading = errors.New("new section does not start with a heading")
	// ErrEmptyTitle: RenameSection was given an empty title.
	ErrEmptyTitle = errors.New("new heading title is empty")
	// ErrContentSpills: the new text would change headings outside the
	// edited span, for example an unclosed code fence swallowing the
	// sections after it.
	ErrContentSpills = errors.New("new content would change the sections around it (unclosed code fence or HTML block?)")
)

// SectionError is the error every section operation returns.
type SectionError struct {
	Op     string // "find", "replace", "remove", "append", "insert", "rename"
	Target string // the heading as the caller gave it
	// Lines holds the 1-based heading lines of the matching sections when
	// Err is ErrSectionAmbiguous, so the view can point at them.
	Lines []int
	// Paths holds, beside Lines, each matching section's parents as a path
	// ("Changelog > 0.74.3"; "" for a top-level section), which Find also
	// accepts in front of the title ("0.74.3 > Fixes").
	Paths []string
	Err   error
}

// Error reads like `markdown: replace section "## Notes": heading matches
// more than one section (headings on lines 3, 9)`.
func (e *SectionError) Error() string {
	msg := fmt.Sprintf("markdown: %s section %q: %v", e.Op, e.Target, e.Err)
	if len(e.Lines) > 0 {
		msg += fmt.Sprintf(" (headings on lines %s)", joinInts(e.Lines))
	}
	return msg
}

// Ambiguity explains an ErrSectionAmbiguous target to a person or a model: how many sections
// match, where (a few of their parent paths and heading lines), and how to name one by its path
// ("0.74.3 > Fixes") when the paths differ. For example: `"### Fixes" matches 2 sections: under
// "Changelog > 0.74.3" (line 5); under "Changelog > 0.74.2" (line 11); name one by its parent,
// e.g. "0.74.3 > Fixes", or rename one first`.
func (se *SectionError) Ambiguity() string {
	title := se.Target
	if i := strings.LastIndex(title, ">"); i >= 0 {
		title = title[i+1:]
	}
	title = strings.TrimSpace(strings.Trim(strings.TrimSpace(title), "#"))
	var where []string
	example := ""
	for k, p := range se.Paths {
		if k == 5 {
			where = append(where, "…")
			break
		}
		line := ""
		if k < len(se.Lines) {
			line = fmt.Sprintf(" (line %d)", se.Lines[k])
		}
		if p == "" {
			where = append(where, "at the top level"+line)
			continue
		}
		where = append(where, fmt.Sprintf("under %q%s", p, line))
		if example == "" && unique(se.Paths, p) {
			parts := strings.Split(p, " > ")
			example = parts[len(parts)-1] + " > " + title
		}
	}
	msg := fmt.Sprintf("%q matches %d sections: %s", se.Target, len(se.Lines), strings.Join(where, "; "))
	if example != "" {
		return msg + fmt.Sprintf("; name one by its parent, e.g. %q, or rename one first", example)
	}
	return msg + "; rename one first"
}

// unique reports whether s occurs once in xs.
func unique(xs []string, s string) bool {
	n := 0
	for _, x := range xs {
		if x == s {
			n++
		}
	}
	return n == 1
}

// Unwrap gives the sentinel (ErrSectionNotFound …) to errors.Is.
func (e *SectionError) Unwrap() error { return e.Err }

// parseTarget returns the comparable title of a target and the level its
// marks or underline gave (0 when none).
func parseTarget(target string) (title string, level int) {
	lines := splitLinesKeepEOL(strings.TrimSpace(target))
	if n := len(lines); n >= 2 {
		u := strings.TrimSpace(lines[n-1])
		if u != "" && strings.Trim(u, "=") == "" {
			level, lines = 1, lines[:n-1]
		} else if u != "" && strings.Trim(u, "-") == "" {
			level, lines = 2, lines[:n-1]
		}
	}
	t := strings.TrimSpace(strings.Join(lines, " "))
	if j, ok := atxOpening(t); ok {
		level = strings.Count(t[:j], "#")
		t = stripClosingHashes(t[j:])
	}
	return collapseSpace(t), level
}

// Find returns the index in o.Sections of the one section target names,
// or -1 for the preamble when target is empty (Galaxy's convention).
//
// A target names a heading the way a person or a model writes it:
// "## Methods", "Methods", "methods ##", "Methods\n-------". '#' marks,
// closing hashes, a setext underline, surrounding space and case are
// ignored, and inner white space is collapsed. When several sections
// match and the target carried a level ("## Notes"), the only section of
// that level wins; otherwise the target is ambiguous. When no heading reads
// as the whole target, a target with " > " names a section by the titles of
// its parents: "0.74.3 > Fixes" is the "Fixes" whose parent is "0.74.3"
// (the parents given are the closest ones, in order; failing that, any of
// its parents in order: "Changelog > Fixes").
//
// Errors (as *SectionError): ErrSectionNotFound, ErrSectionAmbiguous (with
// the matching headings' line numbers). Every section operation below
// finds its target this way.
func (o Outline) Find(target string) (int, error) {
	return o.find("find", target, true)
}

// find is Find for operation op; allowPreamble false makes "" not found.
func (o Outline) find(op, target string, allowPreamble bool) (int, error) {
	title, level := parseTarget(target)
	if title == "" && level == 0 {
		if allowPreamble {
			return -1, nil
		}
		return 0, &SectionError{Op: op, Target: target, Err: ErrSectionNotFound}
	}
	var matches []int
	for i, s := range o.Sections {
		if strings.EqualFold(s.Title, title) {
			matches = append(matches, i)
		}
	}
	if len(matches) == 0 && strings.Contains(target, ">") {
		matches, level = o.findPath(target)
	}
	if len(matches) > 1 && level > 0 {
		var same []int
		for _, i := range matches {
			if o.Sections[i].Level == level {
				same = append(same, i)
			}
		}
		if len(same) == 1 {
			matches = same
		}
	}
	switch len(matches) {
	case 0:
		return 0, &SectionError{Op: op, Target: target, Err: ErrSectionNotFound}
	case 1:
		return matches[0], nil
	}
	lines := make([]int, len(matches))
	paths := make([]string, len(matches))
	for k, i := range matches {
		lines[k] = o.Sections[i].Line
		paths[k] = strings.Join(o.Parents(i), " > ")
	}
	return 0, &SectionError{Op: op, Target: target, Lines: lines, Paths: paths, Err: ErrSectionAmbiguous}
}

// Target returns the shortest target that names section i alone, as Find reads it: its heading
// ("### Added") when that is unique, else the heading under the titles of its closest parents
// ("[1.7.0] - 2020-09-14 > Added", then "Changelog > [1.7.0] > Added" …). When nothing names it
// alone (two identical paths) it returns the heading, which Find reports as ambiguous.
func (o Outline) Target(i int) string {
	s := o.Sections[i]
	heading := strings.Repeat("#", s.Level) + " " + s.Title
	if o.names(heading, i) {
		return heading
	}
	parents := o.Parents(i)
	for k := len(parents) - 1; k >= 0; k-- {
		path := strings.Join(parents[k:], " > ")
		for _, last := range []string{s.Title, heading} {
			if t := path + " > " + last; o.names(t, i) {
				return t
			}
		}
	}
	return heading
}

// names reports whether target finds section i and only it.
func (o Outline) names(target string, i int) bool {
	j, err := o.Find(target)
	return err == nil && j == i
}

// Parents returns the titles of section i's parents, outermost first (nil for a top-level one).
func (o Outline) Parents(i int) []string {
	var titles []string
	level := o.Sections[i].Level
	for j := i - 1; j >= 0 && level > 1; j-- {
		if s := o.Sections[j]; s.Level < level {
			titles = append([]string{s.Title}, titles...)
			level = s.Level
		}
	}
	return titles
}

// findPath finds the sections a target "Parent > … > Title" names: those titled Title whose
// closest parents have the given titles, or when none has, those whose parents include the given
// titles in that order ("Archive > Added" for the "Added" under "Archive > 0.9.0"). It returns
// them and the level the last part gave.
func (o Outline) findPath(target string) ([]int, int) {
	parts := strings.Split(target, ">")
	title, level := parseTarget(parts[len(parts)-1])
	want := make([]string, len(parts)-1)
	for k, w := range parts[:len(parts)-1] {
		want[k], _ = parseTarget(w)
	}
	var closest, within []int
	for i, s := range o.Sections {
		if !strings.EqualFold(s.Title, title) {
			continue
		}
		parents := o.Parents(i)
		if len(parents) < len(want) {
			continue
		}
		if slices.EqualFunc(parents[len(parents)-len(want):], want, strings.EqualFold) {
			closest = append(closest, i)
		} else if inOrder(parents, want) {
			within = append(within, i)
		}
	}
	if len(closest) > 0 {
		return closest, level
	}
	return within, level
}

// inOrder reports whether want's titles occur in titles in the same order (not necessarily
// adjacent), ignoring case.
func inOrder(titles, want []string) bool {
	k := 0
	for _, t := range titles {
		if k < len(want) && strings.EqualFold(t, want[k]) {
			k++
		}
	}
	return k == len(want)
}

// ReplaceSection replaces the section target names, subsections included,
// with newContent, and returns the new document.
//
// newContent normally starts with its heading line, so it may rename the
// section or change its level; when it does not start with a heading, the
// old heading is kept and newContent becomes the body. Its line endings
// are converted to the document's (LineEnding), leading and trailing blank
// lines are dropped, and the blank lines that separated the old section
// from what follows are kept. Target "" replaces the preamble.
//
// Errors (as *SectionError): ErrSectionNotFound, ErrSectionAmbiguous,
// ErrContentSpills.
func ReplaceSection(doc, target, newContent string) (string, error) {
	o := Split(doc)
	i, err := o.find("replace", target, true)
	if err != nil {
		return "", err
	}
	eol := LineEnding(doc)
	core, _ := splitTrailingBlank(trimLeadingBlankLines(NormalizeLineEndings(newContent, eol)))
	var start, end int
	if i < 0 {
		start, end = 0, len(o.Preamble)
	} else {
		s := o.Sections[i]
		start, end = s.Start, s.End
		if !startsWithHeading(core) {
			if core == "" {
				core = trimEOL(s.Heading)
			} else {
				core = trimEOL(s.Heading) + eol + core
			}
		}
	}
	// Keep the blank lines that separated the old text from what follows
	// (or the old lack of a final line ending).
	_, tail := splitTrailingBlank(doc[start:end])
	switch {
	case i < 0 && core == "":
		tail = "" // an emptied preamble leaves no blank lines behind
	case i < 0 && start == end && end < len(doc):
		tail = eol + eol // a new preamble before the first heading
	case tail == "" && (end < len(doc) || doc == ""):
		tail = eol
	}
	piece := core + tail
	lead := ""
	if needsBlankBefore(doc[:start], core) {
		lead = eol
	}
	out, err := splice(o, doc, start, end, lead+piece, eol)
	if err != nil {
		return "", &SectionError{Op: "replace", Target: target, Err: err}
	}
	return out, nil
}

// RemoveSection deletes the section target names, subsections included.
// Removing the last section also drops the blank lines it leaves at the
// end of the document (keeping one final line ending if there was one).
//
// Errors (as *SectionError): ErrSectionNotFound, ErrSectionAmbiguous,
// ErrContentSpills.
func RemoveSection(doc, target string) (string, error) {
	o := Split(doc)
	i, err := o.find("remove", target, false)
	if err != nil {
		return "", err
	}
	s := o.Sections[i]
	eol := LineEnding(doc)
	if s.End == len(doc) {
		core, _ := splitTrailingBlank(doc[:s.Start])
		if core != "" && endsWithEOL(doc) {
			core += eol
		}
		return core, nil
	}
	out, err := splice(o, doc, s.Start, s.End, "", eol)
	if err != nil {
		return "", &SectionError{Op: "remove", Target: target, Err: err}
	}
	return out, nil
}

// AppendToSection adds content at the end of the section's own text: after
// its last non-blank line and before its first subsection, so the text
// stays under that heading rather than the last subsection's. A blank line
// separates it from the existing body (none when the body is empty).
// Target "" appends to the preamble.
//
// Errors (as *SectionError): ErrSectionNotFound, ErrSectionAmbiguous,
// ErrContentSpills.
func AppendToSection(doc, target, content string) (string, error) {
	o := Split(doc)
	i, err := o.find("append", target, true)
	if err != nil {
		return "", err
	}
	eol := LineEnding(doc)
	add, _ := splitTrailingBlank(trimLeadingBlankLines(NormalizeLineEndings(content, eol)))
	if add == "" {
		return doc, nil
	}
	start, ownEnd, heading := 0, len(o.Preamble), ""
	if i >= 0 {
		s := o.Sections[i]
		start, ownEnd, heading = s.Start, s.Start+len(s.Heading)+len(s.Body), trimEOL(s.Heading)
	}
	core, _ := splitTrailingBlank(doc[start:ownEnd])
	p := start + len(core)
	var piece string
	switch {
	case core == "": // empty preamble
		piece = add + eol
		if ownEnd < len(doc) {
			piece += eol
		}
	case core == heading: // heading with no body yet
		piece = eol + add
	default:
		piece = eol + eol + add
	}
	out, err := splice(o, doc, p, p, piece, eol)
	if err != nil {
		return "", &SectionError{Op: "append", Target: target, Err: err}
	}
	return out, nil
}

// InsertSection places a new section (content, which must start with a
// heading) right after the section after names, subsections included, and
// returns the new document. An empty after inserts it after the preamble,
// before the first heading. Blank lines separate it from its neighbours.
//
// Errors (as *SectionError): ErrNoHeading, ErrSectionNotFound,
// ErrSectionAmbiguous, ErrContentSpills.
func InsertSection(doc, after, content string) (string, error) {
	o := Split(doc)
	i, err := o.find("insert", after, true)
	if err != nil {
		return "", err
	}
	p := len(o.Preamble)
	if i >= 0 {
		p = o.Sections[i].End
	}
	out, err := insertAt(o, doc, p, content)
	if err != nil {
		return "", &SectionError{Op: "insert", Target: after, Err: err}
	}
	return out, nil
}

// AppendSection adds a new section (content, which must start with a
// heading) at the end of the document.
//
// Errors (as *SectionError): ErrNoHeading, ErrContentSpills.
func AppendSection(doc, content string) (string, error) {
	out, err := insertAt(Split(doc), doc, len(doc), content)
	if err != nil {
		return "", &SectionError{Op: "insert", Err: err}
	}
	return out, nil
}

func insertAt(o Outline, doc string, p int, content string) (string, error) {
	eol := LineEnding(doc)
	core, _ := splitTrailingBlank(trimLeadingBlankLines(NormalizeLineEndings(content, eol)))
	if !startsWithHeading(core) {
		return "", ErrNoHeading
	}
	before, rest := doc[:p], doc[p:]
	var piece string
	switch {
	case before != "" && !endsWithEOL(before):
		piece = eol + eol + core // at the end of a document without a final line ending
	case !lastLineBlank(before):
		piece = eol + core
	default:
		piece = core
	}
	switch {
	case rest != "":
		piece += eol + eol
	case doc == "" || endsWithEOL(doc):
		piece += eol
	}
	return splice(o, doc, p, p, piece, eol)
}

// RenameSection gives the section target names a new heading text and
// keeps its level and style: an ATX heading keeps its marks, spacing and
// closing hashes; a setext heading keeps its underline character, and an
// underline as long as the old text is resized to the new one. newTitle
// is one line of inline markdown; '#' marks in front of it are dropped.
//
// Errors (as *SectionError): ErrEmptyTitle, ErrSectionNotFound,
// ErrSectionAmbiguous, ErrContentSpills.
func RenameSection(doc, target, newTitle string) (string, error) {
	title, _ := parseTarget(newTitle)
	if title == "" {
		return "", &SectionError{Op: "rename", Target: target, Err: ErrEmptyTitle}
	}
	o := Split(doc)
	i, err := o.find("rename", target, false)
	if err != nil {
		return "", err
	}
	s := o.Sections[i]
	var heading string
	if s.Setext {
		heading = renameSetext(s.Heading, title)
	} else {
		heading = renameATX(s.Heading, title)
	}
	out, err := splice(o, doc, s.Start, s.Start+len(s.Heading), heading, LineEnding(doc))
	if err != nil {
		return "", &SectionError{Op: "rename", Target: target, Err: err}
	}
	return out, nil
}

func renameATX(heading, title string) string {
	line := trimEOL(heading)
	ending := heading[len(line):]
	mark := ""
	if strings.HasPrefix(line, bom) {
		mark, line = bom, line[len(bom):]
	}
	j, _ := atxOpening(line)
	rest := line[j:]
	trimmed := strings.TrimRight(rest, " \t")
	trailing := rest[len(trimmed):]
	content := strings.TrimRight(stripClosingHashes(trimmed), " \t")
	closing := trimmed[len(content):]
	space := rest[:len(rest)-len(strings.TrimLeft(rest, " \t"))]
	if space == "" || len(space) == len(rest) {
		space = " "
	}
	if closing == "" && strings.HasSuffix(title, "#") && stripClosingHashes(title) != title {
		title = title[:len(title)-1] + `\#` // would read as a closing sequence
	}
	return mark + line[:j] + space + title + closing + trailing + ending
}

func renameSetext(heading, title string) string {
	mark := ""
	if strings.HasPrefix(heading, bom) {
		mark, heading = bom, heading[len(bom):]
	}
	lines := splitLinesKeepEOL(heading)
	underline := lines[len(lines)-1]
	first := lines[0]
	indent := first[:len(first)-len(strings.TrimLeft(first, " "))]
	textEnd := trimEOL(lines[len(lines)-2])
	ending := lines[len(lines)-2][len(textEnd):]
	oldText := strings.TrimSpace(strings.Join(lines[:len(lines)-1], ""))

	u := trimEOL(underline)
	uEnding := underline[len(u):]
	uIndent := u[:len(u)-len(strings.TrimLeft(u, " "))]
	bar := strings.TrimSpace(u)
	if len(lines) == 2 && utf8.RuneCountInString(bar) == utf8.RuneCountInString(oldText) {
		bar = strings.Repeat(bar[:1], max(utf8.RuneCountInString(title), 3))
	}
	return mark + indent + escapeSetextStart(title) + ending + uIndent + bar + uEnding
}

// escapeSetextStart backslash-escapes the start of a setext heading text
// that would otherwise open another block (list item, quote, ATX heading,
// thematic break, fence, HTML) instead of the heading's paragraph.
func escapeSetextStart(t string) string {
	if _, ok := atxOpening(t); ok {
		return `\` + t
	}
	switch {
	case strings.Trim(t, " \t*_-") == "", // thematic break
		strings.HasPrefix(t, ">"), strings.HasPrefix(t, "<"),
		strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"):
		return `\` + t
	case strings.ContainsRune("-+*", rune(t[0])) && (len(t) == 1 || t[1] == ' ' || t[1] == '\t'):
		return `\` + t
	}
	digits := len(t) - len(strings.TrimLeft(t, "0123456789"))
	if digits > 0 && digits <= 9 && digits < len(t) && (t[digits] == '.' || t[digits] == ')') &&
		(digits+1 == len(t) || t[digits+1] == ' ' || t[digits+1] == '\t') {
		return t[:digits] + `\` + t[digits:]
	}
	return t
}

// StartsWithHeading reports whether markdown text opens with a heading (after blank lines).
func StartsWithHeading(s string) bool { return startsWithHeading(s) }

// startsWithHeading reports whether markdown text opens with a heading.
func startsWithHeading(s string) bool {
	o := split(s, false)
	return len(o.Sections) > 0 && strings.TrimSpace(o.Preamble) == ""
}

// needsBlankBefore reports whether text placed right after before must be
// separated by a blank line: a setext heading right after a non-blank line
// would be read as part of the paragraph above.
func needsBlankBefore(before, core string) bool {
	if lastLineBlank(before) || !endsWithEOL(before) {
		return false
	}
	o := split(core, false)
	return len(o.Sections) > 0 && o.Preamble == "" && o.Sections[0].Setext
}

// splice returns doc with doc[start:end] replaced by piece, after checking
// that the edit changed no heading outside the span: every section that
// started before start or at/after end is still there, shifted, and the
// piece contributes exactly the headings it has on its own. If the check
// fails, it retries with a blank line after the piece (an HTML block or
// paragraph needing a separator), then also before it; then gives
// ErrContentSpills.
func splice(o Outline, doc string, start, end int, piece, eol string) (string, error) {
	before := doc[:start]
	for attempt := range 3 {
		p := piece
		if attempt >= 1 && end < len(doc) {
			p += eol // a blank line after the piece
		}
		if attempt == 2 {
			if !endsWithEOL(before) || lastLineBlank(before) {
				break
			}
			p = eol + p // and one before it
		}
		out := before + p + doc[end:]
		if sameStructure(o, out, split(p, start == 0), start, end, len(p)) {
			return out, nil
		}
	}
	return "", ErrContentSpills
}

// sameStructure checks the sections of an edited document against the
// ones expected from the original outline and the inserted piece.
//
// It parses only the stretch of out that can differ: from the last heading
// wholly before start (a top-level heading leaves no block open, so parsing
// can start there) to the end of the first old heading after the edit.
// When that heading is still found where it should be, everything after
// it is the old text in the same parser state, so its sections are the old
// ones, shifted.
func sameStructure(old Outline, out string, piece Outline, start, end, pieceLen int) bool {
	type head struct{ start, level int }
	anchor := 0
	for _, s := range old.Sections {
		if s.Start+len(s.Heading) > start {
			break // a heading the edit touches (or follows) leaves no known state
		}
		anchor = s.Start
	}
	var want []head
	for _, s := range old.Sections {
		if s.Start >= anchor && s.Start < start {
			want = append(want, head{s.Start, s.Level})
		}
	}
	for _, s := range piece.Sections {
		want = append(want, head{start + s.Start, s.Level})
	}
	shift := pieceLen - (end - start)
	stop := len(out)
	for _, s := range old.Sections {
		if s.Start >= end {
			want = append(want, head{s.Start + shift, s.Level})
			stop = s.Start + shift + len(s.Heading)
			break
		}
	}
	got := split(out[anchor:stop], anchor == 0)
	if len(want) != len(got.Sections) {
		return false
	}
	for k, s := range got.Sections {
		if want[k] != (head{anchor + s.Start, s.Level}) {
			return false
		}
	}
	return true
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}
