package markdown

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"
)

// Outline is a markdown document cut at its top-level headings. Joining
// Preamble and every section's Heading and Body, in order, gives back the
// document byte for byte (see Join).
type Outline struct {
	// Preamble is everything before the first heading (front matter
	// included); "" when the document starts with a heading.
	Preamble string
	// Sections lists every top-level heading in document order, flat.
	// Section.End tells how far each one reaches with its subsections.
	Sections []Section

	doc string
}

// Content returns section i with its subsections: the document's bytes
// from Sections[i].Start to Sections[i].End. Content(-1) is the preamble,
// so Content(o.Find(target)) works for every target Find accepts.
func (o Outline) Content(i int) string {
	if i < 0 {
		return o.Preamble
	}
	return o.doc[o.Sections[i].Start:o.Sections[i].End]
}

// Section is one heading of a document and the text under it.
type Section struct {
	// Level is 1–6: the number of '#' marks, or 1 for a setext "===" and 2
	// for a setext "---" underline.
	Level int
	// Setext is true for a heading written as text over an underline.
	Setext bool
	// Title is the heading text without '#' marks, closing hashes,
	// underline and surrounding space; inner runs of white space (and the
	// line breaks of a multi-line setext heading) are one space.
	Title string
	// Heading is the heading's source lines with their line endings: one
	// line for ATX, the text lines and the underline for setext.
	Heading string
	// Body is the text after Heading up to the next heading of any level:
	// the section's own text, without its subsections.
	Body string
	// Line is the 1-based line number of the heading's first line.
	Line int
	// Start is the byte offset of Heading in the document; End is the byte
	// offset where the section stops, subsections included: the Start of
	// the next heading of the same or a higher level (a Level <= this
	// one), or the document's length.
	Start, End int
}

// Join reassembles the document: Preamble + Heading + Body of every
// section. For any string s, Split(s).Join() == s.
func (o Outline) Join() string {
	n := len(o.Preamble)
	for _, s := range o.Sections {
		n += len(s.Heading) + len(s.Body)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(o.Preamble)
	for _, s := range o.Sections {
		b.WriteString(s.Heading)
		b.WriteString(s.Body)
	}
	return b.String()
}

// Split cuts doc into its preamble and sections.
//
// A heading is a CommonMark ATX heading ("#" … "######", at most three
// spaces of indent, a space or the line end after the marks, optional
// closing hashes) or setext heading (paragraph text over a "===" or "---"
// underline), found where goldmark's CommonMark block parser finds them (a
// line scanner, see scanHeadings, that defers to goldmark where needed), so a line
// inside a fenced or indented code block, an HTML block, a block quote or a
// list item is never a section heading, and "---" after a blank line or a
// heading is a thematic break, not an underline. GFM tables are recognised
// as the renderer does. YAML ("---") or TOML ("+++") front matter at the
// very start belongs to the preamble and is not parsed as markdown. A
// leading byte-order mark is ignored.
//
// Line endings may be LF, CRLF or a lone CR, mixed; they stay in the
// pieces untouched.
func Split(doc string) Outline { return split(doc, true) }

// split is Split; atDocStart false is for a piece of text that will sit
// in the middle of a document, where front matter and a byte-order mark
// mean nothing.
func split(doc string, atDocStart bool) Outline {
	masked := maskForParsing(doc, atDocStart)
	return assemble(doc, masked, scanHeadings(doc, masked))
}

// assemble builds the outline of doc from its top-level headings in document order (each
// with Level, Setext, Title, Start and End, the end of its own lines, set).
func assemble(doc string, masked []byte, heads []Section) Outline {
	o := Outline{Preamble: doc, doc: doc}
	if len(heads) == 0 {
		return o
	}
	o.Preamble = doc[:heads[0].Start]
	line := 1 + countLineBreaks(masked[:heads[0].Start])
	for i := range heads {
		s := &heads[i]
		headEnd := s.End // the end of the heading's own lines, until set below
		bodyEnd := len(doc)
		if i+1 < len(heads) {
			bodyEnd = heads[i+1].Start
		}
		s.Heading = doc[s.Start:headEnd]
		s.Body = doc[headEnd:bodyEnd]
		s.Line = line
		line += countLineBreaks(masked[s.Start:bodyEnd])
	}
	// A section ends where the next one of its level or a higher one starts: walk back with
	// the starts of the closest later heading of each level.
	var nextAt [7]int
	for l := range nextAt {
		nextAt[l] = len(doc)
	}
	for i := len(heads) - 1; i >= 0; i-- {
		l := heads[i].Level
		heads[i].End = len(doc)
		for k := 1; k <= l; k++ {
			heads[i].End = min(heads[i].End, nextAt[k])
		}
		nextAt[l] = heads[i].Start
	}
	o.Sections = heads
	return o
}

// sectionParser parses block structure only as far as headings need:
// CommonMark blocks plus the GFM table transformer, no inline extensions.
var sectionParser = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithInlineParsers(),
	parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
		util.Prioritized(extension.NewTableParagraphTransformer(), 200))...),
)

// maskForParsing returns a copy of src that goldmark can parse with the
// same byte offsets: CRLF becomes " \n" (a trailing space changes no block
// structure), a lone CR becomes "\n", a leading byte-order mark becomes
// spaces, and front matter becomes blank lines.
func maskForParsing(src string, atDocStart bool) []byte {
	m := []byte(src)
	for i := 0; i < len(m); i++ {
		if m[i] == '\r' {
			if i+1 < len(m) && m[i+1] == '\n' {
				m[i] = ' '
			} else {
				m[i] = '\n'
			}
		}
	}
	if !atDocStart {
		return m
	}
	start := 0
	if bytes.HasPrefix(m, []byte(bom)) {
		copy(m, "   ")
		start = 3
	}
	if end := frontMatterEnd(m, start); end > 0 {
		for i := start; i < end; i++ {
			if m[i] != '\n' {
				m[i] = ' '
			}
		}
	}
	return m
}

// frontMatterEnd returns the offset just past the closing fence of front
// matter opening at start ("---" … "---" or "...", or "+++" … "+++"), or 0.
// m has only "\n" line breaks.
func frontMatterEnd(m []byte, start int) int {
	first, next := lineAt(m, start)
	fence := string(bytes.TrimRight(first, " \t"))
	if fence != "---" && fence != "+++" {
		return 0
	}
	for pos := next; pos < len(m); {
		line, after := lineAt(m, pos)
		l := string(bytes.TrimRight(line, " \t"))
		if l == fence || (fence == "---" && l == "...") {
			return after
		}
		pos = after
	}
	return 0
}

// lineAt returns the line starting at pos without its "\n", and the offset
// of the next line.
// bom is the UTF-8 byte-order mark, ignored at the start of a document.
const bom = "\ufeff"

func lineAt(m []byte, pos int) ([]byte, int) {
	i := bytes.IndexByte(m[pos:], '\n')
	if i < 0 {
		return m[pos:], len(m)
	}
	return m[pos : pos+i], pos + i + 1
}

func lineStartBefore(m []byte, pos int) int {
	return bytes.LastIndexByte(m[:pos], '\n') + 1
}

func countLineBreaks(m []byte) int { return bytes.Count(m, []byte{'\n'}) }

// headingSpan locates a top-level heading node in the source: Start is the
// first byte of its first line and End (temporarily) the first byte after
// its last line (the setext underline), line ending included.
func headingSpan(doc string, masked []byte, h *ast.Heading) (Section, bool) {
	pos := h.Pos()
	if pos < 0 && h.Lines().Len() > 0 {
		pos = h.Lines().At(0).Start
	}
	if pos < 0 || pos > len(masked) {
		return Section{}, false
	}
	start := lineStartBefore(masked, pos)
	first, afterFirst := lineAt(masked, start)
	s := Section{Level: h.Level, Start: start}
	if _, ok := atxOpening(string(first)); ok {
		s.End = afterFirst
		s.Title = atxTitle(strings.TrimPrefix(trimEOL(doc[start:afterFirst]), bom))
		return s, true
	}
	// Setext: the underline is the line after the last text line.
	if h.Lines().Len() == 0 {
		return Section{}, false
	}
	last := h.Lines().At(h.Lines().Len() - 1)
	underline := afterFirst
	if ls := lineStartBefore(masked, last.Start); ls >= start {
		_, underline = lineAt(masked, ls)
	}
	if underline >= len(masked) {
		return Section{}, false
	}
	_, end := lineAt(masked, underline)
	s.Setext = true
	s.End = end
	s.Title = collapseSpace(strings.TrimPrefix(doc[start:underline], bom))
	return s, true
}

// atxOpening reports whether line opens an ATX heading and returns the
// offset just past its '#' marks.
func atxOpening(line string) (int, bool) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	j := i
	for j < len(line) && line[j] == '#' {
		j++
	}
	if n := j - i; n < 1 || n > 6 {
		return 0, false
	}
	if j < len(line) && line[j] != ' ' && line[j] != '\t' {
		return 0, false
	}
	return j, true
}

// atxTitle returns the text of an ATX heading line (no line ending):
// without opening marks, closing sequence and surrounding space.
func atxTitle(line string) string {
	j, _ := atxOpening(line)
	return collapseSpace(stripClosingHashes(line[j:]))
}

// stripClosingHashes removes an ATX closing sequence: trailing '#'s that
// are the whole content or follow a space or tab.
func stripClosingHashes(s string) string {
	s = strings.TrimRight(s, " \t")
	t := strings.TrimRight(s, "#")
	if t == s {
		return s
	}
	if t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t") {
		return t
	}
	return s
}

// collapseSpace trims s and turns every run of white space (line breaks
// included) into one space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func trimEOL(s string) string {
	return strings.TrimRight(s, "\r\n")
}
