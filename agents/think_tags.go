package agents

import "strings"

// Reasoning written inline in the answer text, as vLLM without a reasoning parser, LM Studio,
// llama.cpp with reasoning_format none and DeepSeek-R1 distills send it:
// "<think>reasoning</think>answer". QwQ and Qwen3 open the tag in their chat template, so their
// text holds only the closing one: "reasoning</think>answer".
const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// thinkPiece is one run of text that thinkTags has classified.
type thinkPiece struct {
	kind thinkPieceKind
	text string
}

type thinkPieceKind int

const (
	pieceAnswer       thinkPieceKind = iota // answer text
	pieceReasoning                          // reasoning text
	pieceWasReasoning                       // the answer text so far was reasoning (text is "")
)

// thinkTags splits a stream's answer text into answer and reasoning at <think> and </think> tags,
// wherever the deltas cut them (a tag's bytes may come in several fragments). The opening tag
// counts only at the start of the answer, the closing one only once; a tag inside a fenced code
// block or a `code span` is quoted text and stays in the answer. Whitespace before
// the opening tag and right after the closing one belongs to neither and is dropped. Its input is
// whole UTF-8 characters; the tags are ASCII, so the pieces are whole characters too.
type thinkTags struct {
	inside   bool   // between <think> and </think>
	tagged   bool   // a tag has been recognised: a later bare </think> is the answer's text
	held     string // the end of the input, which may be the start of a tag
	lead     string // whitespace at the very start of the answer, held until we know what follows
	answered bool   // non-whitespace answer text has been passed on
	trim     bool   // drop whitespace until the answer's first other character (after </think>)
	code     codeSpans
	pieces   []thinkPiece // feed's result, reused by the next feed
}

// feed classifies the next fragment. The pieces are valid until the next feed.
func (t *thinkTags) feed(s string) (out []thinkPiece) {
	out = t.pieces[:0]
	defer func() { t.pieces = out[:0] }()
	buf := t.held + s
	t.held = ""
	for len(buf) > 0 {
		if t.inside {
			if i := strings.Index(buf, thinkClose); i >= 0 {
				out = appendPiece(out, pieceReasoning, buf[:i])
				buf = buf[i+len(thinkClose):]
				t.inside, t.trim = false, true
				continue
			}
			keep := partialTag(buf, thinkClose)
			out = appendPiece(out, pieceReasoning, buf[:len(buf)-keep])
			t.held = buf[len(buf)-keep:]
			return out
		}
		i, tag, partial := t.scan(buf)
		out = t.answer(out, buf[:i])
		switch {
		case partial:
			t.held = buf[i:]
			return out
		case tag == thinkOpen:
			t.inside, t.tagged = true, true
			t.lead = ""
			buf = buf[i+len(thinkOpen):]
		case tag == thinkClose:
			// The answer so far was reasoning whose opening tag the chat template wrote.
			t.tagged, t.trim = true, true
			t.lead, t.answered = "", false
			out = append(out, thinkPiece{kind: pieceWasReasoning})
			buf = buf[i+len(thinkClose):]
		default:
			return out
		}
	}
	return out
}

// scan walks buf as answer text, tracking code spans, up to the first tag outside code: it returns
// where the tag starts and which it is, or partial when buf ends inside what may become a tag, or
// len(buf) and "" when there is none.
func (t *thinkTags) scan(buf string) (at int, tag string, partial bool) {
	text := t.answered // answer text came before: an opening tag here would be quoted prose
	for i := 0; i < len(buf); i++ {
		c := buf[i]
		if c == '<' && !t.code.inCode(c) {
			rest := buf[i:]
			closing := !t.tagged && strings.HasPrefix(rest, thinkClose)
			switch {
			case strings.HasPrefix(rest, thinkOpen) && !text:
				return i, thinkOpen, false
			case strings.HasPrefix(rest, thinkOpen):
				t.tagged = true // an opening tag in prose is quoted: so is a closing one after it
			case closing:
				return i, thinkClose, false
			case len(rest) < len(thinkClose) && (strings.HasPrefix(thinkOpen, rest) || !t.tagged && strings.HasPrefix(thinkClose, rest)):
				return i, "", true
			}
		}
		t.code.step(c)
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			text = true
		}
	}
	return len(buf), "", false
}

// answer adds answer text to out, holding leading whitespace and dropping it after </think>.
func (t *thinkTags) answer(out []thinkPiece, s string) []thinkPiece {
	if s == "" {
		return out
	}
	if !t.answered {
		trimmed := strings.TrimLeft(s, " \t\r\n")
		if trimmed == "" {
			if !t.trim {
				t.lead += s
			}
			return out
		}
		if !t.trim {
			trimmed = t.lead + s
		}
		s, t.lead, t.answered, t.trim = trimmed, "", true, false
	}
	return appendPiece(out, pieceAnswer, s)
}

// flush ends the stream: held bytes that never became a tag are text of the current kind.
func (t *thinkTags) flush() []thinkPiece {
	held := t.held
	t.held = ""
	if t.inside {
		return appendPiece(nil, pieceReasoning, held)
	}
	out := t.answer(nil, held)
	if t.lead != "" { // an answer of whitespace alone is still what the model sent
		out = appendPiece(out, pieceAnswer, t.lead)
		t.lead = ""
	}
	return out
}

func appendPiece(out []thinkPiece, kind thinkPieceKind, s string) []thinkPiece {
	if s == "" {
		return out
	}
	return append(out, thinkPiece{kind: kind, text: s})
}

// partialTag is the length of the longest end of s that begins tag (shorter than the tag).
func partialTag(s, tag string) int {
	for n := min(len(tag)-1, len(s)); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}

// codeSpans follows CommonMark's code fences (a line opening with three or more ` or ~, closed
// by a line with at least as many of the same) and code spans (a run of backticks closed by a run
// of the same length on the same line), byte by byte, so tags quoted as code are left alone.
type codeSpans struct {
	midLine   bool // the line has had a character other than up to three leading spaces
	indent    int
	fence     byte // the open fence's character, 0 when none
	fenceLen  int
	run       byte // the run of ` or ~ being counted
	runLen    int
	runAtHead bool // the run began at the line's start (a fence candidate)
	span      int  // the open code span's backtick count, 0 when none
}

// inCode reports whether the next byte, next, is inside code: in a fence or an open code span
// (a run of backticks ending just before next counts as settled).
func (c *codeSpans) inCode(next byte) bool {
	if c.run != 0 && next != c.run {
		c.settle()
	}
	return c.fence != 0 || c.span != 0
}

// step moves past one byte.
func (c *codeSpans) step(b byte) {
	if c.run != 0 && b != c.run {
		c.settle()
	}
	switch {
	case b == '\n':
		c.midLine, c.indent, c.span = false, 0, 0
		return
	case (b == '`' || b == '~') && (c.run == b || c.run == 0):
		if c.run == 0 {
			c.run, c.runAtHead = b, !c.midLine
		}
		c.runLen++
	case b == ' ' && !c.midLine && c.indent < 3:
		c.indent++
		return
	}
	c.midLine = true
}

// settle ends the run of ` or ~ that was being counted.
func (c *codeSpans) settle() {
	run, n, head := c.run, c.runLen, c.runAtHead
	c.run, c.runLen = 0, 0
	switch {
	case head && n >= 3 && c.fence == 0 && c.span == 0:
		c.fence, c.fenceLen = run, n
	case head && c.fence == run && n >= c.fenceLen:
		c.fence, c.fenceLen = 0, 0
	case c.fence != 0 || run != '`':
	case c.span == 0:
		c.span = n
	case c.span == n:
		c.span = 0
	}
}

// SplitReasoning separates inline <think> reasoning from a whole answer text by the same rules
// as a stream (see thinkTags): answers stored before Parley read the tags still hold them. A text
// with neither tag is all answer, found without walking it byte by byte (every turn splits each
// earlier answer it sends).
func SplitReasoning(text string) (answer, reasoning string) {
	if strings.Contains(text, "<|channel|>") { // gpt-oss's harmony markers (harmonyText)
		var h harmonyText
		text = h.feed(text) + h.flush()
	}
	if !strings.Contains(text, "think>") {
		return text, ""
	}
	var t thinkTags
	for _, p := range append(t.feed(text), t.flush()...) {
		switch p.kind {
		case pieceAnswer:
			answer += p.text
		case pieceReasoning:
			reasoning += p.text
		case pieceWasReasoning:
			reasoning, answer = reasoning+answer, ""
		}
	}
	return answer, reasoning
}
