package markdown

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// scanHeadings finds the top-level headings of masked (the output of maskForParsing for doc)
// exactly where goldmark's block parser finds them (see goldmarkHeadings), in one pass over the
// lines. Each Section has Level, Setext, Title, Start and, for now, End set to the first byte
// after the heading's own lines.
//
// It follows goldmark's top-level rules for paragraphs, ATX and setext headings, thematic
// breaks and fenced and indented code itself. A stretch it does not model (a list with more
// than plain paragraphs, a block quote, an HTML block, a setext underline under text that may
// be link reference definitions or a table) runs from a point where nothing is open (the
// stretch's first line, or the first line of the paragraph it interrupts) to the next line at
// which goldmark is known to have closed everything: an ATX heading in column 0, or a line in
// column 0 after a blank line that is not a list item or block quote. Plain bullet or ordered
// lists are checked to hold no heading; any other stretch is parsed by goldmark on its own,
// which gives the same blocks as in the whole document because it starts and ends with
// nothing open (when its last block might still be open there, the stretch is extended).
func scanHeadings(doc string, m []byte) []Section {
	const (
		none     = iota // nothing open
		para            // a paragraph is open
		fence           // a fenced code block is open
		indented        // an indented code block is open
	)
	var heads []Section
	state := none
	parStart, parSuspect := 0, false
	var fenceChar byte
	fenceLen := 0
	for pos := 0; pos < len(m); {
		line, next := lineAt(m, pos)
		w, p := indentWidth(line)
		blank := p == len(line)
		switch state {
		case fence:
			if w < 4 && closesFence(line[p:], fenceChar, fenceLen) {
				state = none
			}
			pos = next
			continue
		case indented:
			if blank || w >= 4 {
				pos = next
				continue
			}
			state = none // this line closes the code block; read it afresh
		case para:
			if blank {
				state = none
				pos = next
				continue
			}
		}
		if blank {
			pos = next
			continue
		}
		if w >= 4 {
			if state == none {
				state = indented
			} // else a paragraph continuation line
			pos = next
			continue
		}
		switch k := blockStart(line, p, state == para); k {
		case startSetext:
			if parSuspect {
				break // link reference definitions or a table: goldmark decides
			}
			level := 1
			if line[p] == '-' {
				level = 2
			}
			heads = append(heads, Section{Level: level, Setext: true, Start: parStart, End: next,
				Title: collapseSpace(strings.TrimPrefix(doc[parStart:pos], bom))})
			state = none
			pos = next
			continue
		case startATX:
			heads = append(heads, Section{Level: atxLevel(line[p:]), Start: pos, End: next,
				Title: atxTitle(strings.TrimPrefix(trimEOL(doc[pos:next]), bom))})
			state = none
			pos = next
			continue
		case startBreak:
			state = none
			pos = next
			continue
		case startFence:
			fenceChar, fenceLen = line[p], runLength(line[p:], line[p])
			state = fence
			pos = next
			continue
		case startText:
			if state == para {
				if !parSuspect && isTableDelimiterLike(line) {
					parSuspect = true
				}
			} else {
				state, parStart, parSuspect = para, pos, line[p] == '['
			}
			pos = next
			continue
		}
		// A stretch goldmark decides (k is startOther or a suspect setext underline).
		from := pos
		if state == para {
			from = parStart
		}
		end := nextResumeLine(m, pos)
		if !plainList(m, from, end) {
			var last ast.Node
			var found []Section
			for {
				found, last = goldmarkHeadings(doc, m, from, end)
				if end == len(m) || closedBefore(last, m, end) {
					break
				}
				end = nextResumeLine(m, end)
			}
			heads = append(heads, found...)
		}
		state = none
		pos = end
	}
	return heads
}

// goldmarkHeadings parses m[from:to] with goldmark's block parser (as Split did before the
// scanner; the differential fuzz test compares the two) and returns its top-level headings,
// with offsets in the whole document, and the stretch's last top-level block (nil if none).
func goldmarkHeadings(doc string, m []byte, from, to int) ([]Section, ast.Node) {
	root := sectionParser.Parse(text.NewReader(m[from:to]))
	var heads []Section
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok {
			continue
		}
		s, ok := headingSpan(doc[from:to], m[from:to], h)
		if !ok || (len(heads) > 0 && from+s.Start < heads[len(heads)-1].End) {
			continue // defensive: never produce overlapping pieces
		}
		s.Start += from
		s.End += from
		heads = append(heads, s)
	}
	return heads, root.LastChild()
}

// closedBefore reports whether goldmark, having parsed up to the line at end (a line
// nextResumeLine returned) and ending with block last, closes last there without the line
// changing it, so that everything after end is parsed from a clean state.
func closedBefore(last ast.Node, m []byte, end int) bool {
	switch n := last.(type) {
	case nil, *ast.List, *ast.Blockquote, *ast.Paragraph, *extast.Table, *ast.Heading,
		*ast.ThematicBreak, *ast.CodeBlock:
		// The line at end is in column 0 and is an ATX heading or follows a blank line: it
		// continues no list item or block quote, interrupts a paragraph or follows its end,
		// and ends indented code.
		return true
	case *ast.HTMLBlock:
		if n.HTMLBlockType == ast.HTMLBlockType6 || n.HTMLBlockType == ast.HTMLBlockType7 {
			return precededByBlank(m, end) // they end at a blank line
		}
		return n.HasClosure()
	}
	return false // a fenced code block may still be open
}

// nextResumeLine returns the offset of the first line after the one at pos at which goldmark
// has nothing open but, possibly, a list, block quote, paragraph, indented code or HTML block
// that the line closes (see closedBefore): a column-0 ATX heading, or a column-0 line after a
// blank line that is neither a list item nor a block quote. len(m) if there is none.
func nextResumeLine(m []byte, pos int) int {
	_, pos = lineAt(m, pos)
	prevBlank := false
	for pos < len(m) {
		line, next := lineAt(m, pos)
		w, p := indentWidth(line)
		switch {
		case p == len(line):
			prevBlank = true
			pos = next
			continue
		case w == 0 && line[0] == '#' && atxLevel(line) > 0:
			return pos
		case w == 0 && prevBlank && line[0] != '>' && !isListItem(line):
			return pos
		}
		prevBlank = false
		pos = next
	}
	return len(m)
}

func precededByBlank(m []byte, pos int) bool {
	if pos == 0 {
		return false
	}
	prev := m[lineStartBefore(m, pos-1):pos]
	for _, c := range prev {
		if c != ' ' && c != '\t' && c != '\n' {
			return false
		}
	}
	return true
}

// plainList reports whether m[from:end] is one list of items holding only plain paragraph
// text, so that goldmark finds no top-level heading in it: every line is blank, or an item in
// column 0 with the first item's marker and 1–4 spaces before text that opens no other block,
// or such text indented at least as far as the item's text (or less, as a lazy continuation
// right after a text line). m[from:] must start with the list's first item.
func plainList(m []byte, from, end int) bool {
	var marker byte // '-', '*', '+', or '.' / ')' for ordered items
	offset := 0     // the current item's text column
	prevBlank := false
	for pos := from; pos < end; {
		line, next := lineAt(m, pos)
		pos = next
		w, p := indentWidth(line)
		if p == len(line) {
			prevBlank = true
			continue
		}
		if w != p {
			return false // tabs in the indent
		}
		if w == 0 && isListItem(line) {
			mk, textAt := listMarker(line)
			if (marker != 0 && mk != marker) || textAt < 0 || blockStart(line[textAt:], 0, false) != startText {
				return false
			}
			marker, offset, prevBlank = mk, textAt, false
			continue
		}
		if marker == 0 || w-offset > 3 || (w < offset && (prevBlank || w > 3)) {
			return false
		}
		// A continuation line: its text must open no block. Inside the item (w >= offset) it
		// is read from the item's text column; a lazy line (w < offset) as a whole line.
		rel := line
		if w >= offset {
			rel = line[offset:]
		}
		if blockStart(rel, p-(len(line)-len(rel)), !prevBlank) != startText {
			return false
		}
		prevBlank = false
	}
	return marker != 0
}

// listMarker reads a list item line in column 0 ("- x", "12. x", "3) x") and returns its
// marker ('-', '*', '+', '.' or ')') and the offset of its text, or -1 when the item is empty
// or its text is indented 5 or more spaces (or by a tab) past the marker.
func listMarker(line []byte) (byte, int) {
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	mk := line[i]
	i++
	j := i
	for j < len(line) && line[j] == ' ' {
		j++
	}
	if j == len(line) || j-i > 4 || line[j] == '\t' {
		return mk, -1
	}
	return mk, j
}

// The kinds of line blockStart tells apart.
const (
	startText   = iota // paragraph text (or a paragraph continuation)
	startSetext        // a setext underline under an open paragraph
	startATX           // an ATX heading
	startBreak         // a thematic break
	startFence         // a fenced code block's opening fence
	startOther         // a list item, block quote or HTML block: left to goldmark
)

// blockStart classifies a line whose first non-space byte is at p, indented at most 3
// columns, in goldmark's order of block parsers (setext underline, thematic break, list,
// ATX heading, fence, block quote, HTML block, paragraph). inPara says a paragraph is open.
func blockStart(line []byte, p int, inPara bool) int {
	switch c := line[p]; c {
	case '=', '-':
		if inPara && isSetextUnderline(line[p:]) {
			return startSetext
		}
		if c == '-' {
			return breakOrList(line, inPara)
		}
	case '*', '_', '+':
		return breakOrList(line, inPara)
	case '#':
		if atxLevel(line[p:]) > 0 {
			return startATX
		}
	case '`', '~':
		if opensFence(line[p:]) {
			return startFence
		}
	case '>', '<':
		return startOther
	default:
		if c >= '0' && c <= '9' && isListItem(line) {
			return startOther
		}
	}
	return startText
}

func breakOrList(line []byte, inPara bool) int {
	if isThematicBreak(line) {
		return startBreak
	}
	if isListItem(line) {
		return startOther
	}
	return startText
}

// indentWidth returns the width of line's leading spaces and tabs (tab stops every 4 columns)
// and the offset of its first other byte (len(line) for a blank line), as goldmark's
// util.IndentWidth.
func indentWidth(line []byte) (w, p int) {
	for p < len(line) {
		switch line[p] {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w, p
		}
		p++
	}
	return w, p
}

// atxLevel returns the level of the ATX heading s starts with (1–6 '#' then a space, a tab or
// the line's end), or 0.
func atxLevel(s []byte) int {
	n := runLength(s, '#')
	if n == 0 || n > 6 || (n < len(s) && s[n] != ' ' && s[n] != '\t') {
		return 0
	}
	return n
}

// isSetextUnderline reports whether s (from the first non-space byte) is a run of '=' or of
// '-' followed only by spaces and tabs.
func isSetextUnderline(s []byte) bool {
	n := runLength(s, s[0])
	return isBlankBytes(s[n:])
}

// isThematicBreak reports whether line (indented at most 3 columns) is three or more '*', '-'
// or '_' of one kind, with any spaces and tabs between.
func isThematicBreak(line []byte) bool {
	var mark byte
	count := 0
	for _, c := range line {
		switch {
		case c == ' ' || c == '\t':
		case mark == 0 && (c == '*' || c == '-' || c == '_'):
			mark, count = c, 1
		case c == mark:
			count++
		default:
			return false
		}
	}
	return count > 2
}

// isListItem reports whether line opens a list item, as goldmark's parseListItem: at most 3
// spaces, then '-', '*', '+' or 1–9 digits and '.' or ')', then a space, a tab or the end.
func isListItem(line []byte) bool {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i > 3 || i == len(line) {
		return false
	}
	switch c := line[i]; {
	case c == '-' || c == '*' || c == '+':
		i++
	case c >= '0' && c <= '9':
		d := i
		for i < len(line) && line[i] >= '0' && line[i] <= '9' {
			i++
		}
		if i-d > 9 || i == len(line) || (line[i] != '.' && line[i] != ')') {
			return false
		}
		i++
	default:
		return false
	}
	return i == len(line) || line[i] == ' ' || line[i] == '\t'
}

// opensFence reports whether s (from the first non-space byte) opens a fenced code block: 3 or
// more '`' or '~', and for backticks an info string without a backtick.
func opensFence(s []byte) bool {
	n := runLength(s, s[0])
	if n < 3 {
		return false
	}
	if s[0] == '`' {
		for _, c := range s[n:] {
			if c == '`' {
				return false
			}
		}
	}
	return true
}

// closesFence reports whether s (from the first non-space byte) closes a fence of length n
// made of c: at least n of c, then only spaces and tabs.
func closesFence(s []byte, c byte, n int) bool {
	k := runLength(s, c)
	return k >= n && isBlankBytes(s[k:])
}

// isTableDelimiterLike reports whether a paragraph line could be a GFM table's delimiter row
// (only spaces, tabs, '-', '|' and ':'), which makes goldmark's table transformer turn the
// paragraph into a table.
func isTableDelimiterLike(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '-' && c != '|' && c != ':' {
			return false
		}
	}
	return true
}

func runLength(s []byte, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

func isBlankBytes(s []byte) bool {
	for _, c := range s {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}
