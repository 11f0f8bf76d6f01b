package markdown

import "strings"

// LineEnding returns the line ending doc mostly uses: "\n", "\r\n" or a
// lone "\r". A document without line breaks, or with a tie between LF
// and another style, gets "\n"; a tie between CRLF and CR gets "\r\n".
func LineEnding(doc string) string {
	var lf, crlf, cr int
	for i := 0; i < len(doc); i++ {
		switch doc[i] {
		case '\n':
			lf++
		case '\r':
			if i+1 < len(doc) && doc[i+1] == '\n' {
				crlf++
				i++
			} else {
				cr++
			}
		}
	}
	switch {
	case crlf > lf && crlf >= cr:
		return "\r\n"
	case cr > lf && cr > crlf:
		return "\r"
	default:
		return "\n"
	}
}

// NormalizeLineEndings rewrites every line ending in s (LF, CRLF or lone
// CR) as eol. Use it to bring text from a model or a form into a
// document's own style (LineEnding) before diffing or splicing.
func NormalizeLineEndings(s, eol string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			b.WriteString(eol)
		case '\n':
			b.WriteString(eol)
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// splitLinesKeepEOL cuts s into lines that keep their own ending; the last
// line has none when s does not end with one. "" gives no lines.
func splitLinesKeepEOL(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			lines = append(lines, s[start:i+1])
			start = i + 1
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			lines = append(lines, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// isBlank reports whether a line (with or without its ending) holds only
// spaces and tabs.
func isBlank(line string) bool {
	return strings.TrimRight(line, " \t\r\n") == ""
}

// splitTrailingBlank cuts s into core, s without its trailing blank lines
// and without the line ending of its last non-blank line, and tail, the
// rest: "a\n\n" → ("a", "\n\n"), "a" → ("a", ""), "\n \n" → ("", "\n \n").
func splitTrailingBlank(s string) (core, tail string) {
	lines := splitLinesKeepEOL(s)
	n := len(lines)
	for n > 0 && isBlank(lines[n-1]) {
		n--
	}
	if n == 0 {
		return "", s
	}
	end := 0
	for _, l := range lines[:n] {
		end += len(l)
	}
	core = trimEOL(s[:end])
	return core, s[len(core):]
}

// trimLeadingBlankLines drops blank lines at the start of s.
func trimLeadingBlankLines(s string) string {
	for _, l := range splitLinesKeepEOL(s) {
		if !isBlank(l) || !strings.ContainsAny(l, "\r\n") {
			break
		}
		s = s[len(l):]
	}
	return s
}

// lastLineBlank reports whether s is empty or its last complete line is
// blank, so a block placed after s starts after a blank line.
func lastLineBlank(s string) bool {
	if s == "" {
		return true
	}
	lines := splitLinesKeepEOL(s)
	return isBlank(lines[len(lines)-1])
}

// endsWithEOL reports whether s ends with a line ending.
func endsWithEOL(s string) bool {
	return strings.HasSuffix(s, "\n") || strings.HasSuffix(s, "\r")
}
