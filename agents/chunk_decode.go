package agents

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// decodeChunk fills c from one chat.completion.chunk in a single pass over data, without
// reflection: a fast upstream sends thousands of these per answer, and encoding/json's reflective
// decoder was most of the relay's CPU time (BenchmarkRelay). It reads the text-only shape every
// server sends (choices with index, delta content/refusal/reasoning fields and finish_reason;
// usage; error) and skips, after checking them, fields nobody reads. Whenever the document is
// anything else (not valid JSON, tool calls, a null or a type where encoding/json would decide
// something, a field it reads given twice, a case-folded or escaped key) it reports false without a
// result, and the caller decodes data with encoding/json, whose result and errors then count: so
// decodeChunk never decides anything encoding/json would decide differently
// (FuzzChunkDecoderAgreesWithEncodingJSON).
func decodeChunk(data []byte, c *chunkWire) bool {
	_, ok := decodeChunkAt(data, c)
	return ok
}

// decodeChunkAt is decodeChunk that also returns where the delta's content string token lies in
// data (zero when there is none).
func decodeChunkAt(data []byte, c *chunkWire) ([2]int, bool) {
	s := jsonScan{b: data}
	*c = chunkWire{}
	var seen uint8
	if !s.object(func(key []byte) bool {
		switch string(key) {
		case "choices":
			return first(&seen, 1) && s.choices(&c.Choices)
		case "usage":
			return first(&seen, 2) && s.usage(&c.Usage)
		case "error":
			if !first(&seen, 4) {
				return false
			}
			s.space()
			at := s.i
			if !s.skip(0) {
				return false
			}
			c.Error = append(json.RawMessage(nil), s.b[at:s.i]...)
			return true
		}
		return s.unknown(key, "choices", "usage", "error")
	}) {
		return [2]int{}, false
	}
	s.space()
	return s.content, s.i == len(s.b)
}

// jsonScan walks a JSON document; b[i] is the next byte to read. Every method reports false as
// soon as the document is not what it expects, leaving the decision to encoding/json.
type jsonScan struct {
	b []byte
	i int
	// content is where the delta's content string token lies in b ([content[0], content[1])),
	// zero when the delta has none or it is not a string (see chunkEcho).
	content [2]int
}

// maxSkipDepth bounds the nesting skip follows (deeper documents go to encoding/json).
const maxSkipDepth = 64

func (s *jsonScan) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next skips white space and reports whether b[i] is c, consuming it when it is.
func (s *jsonScan) next(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// object reads an object, calling field for each key with the scanner at its value, which field
// must read. A key that holds an escape ends the scan (encoding/json would unescape it); field
// ends it for a known key that comes twice (encoding/json would merge them), see first.
func (s *jsonScan) object(field func(key []byte) bool) bool {
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return true
	}
	for {
		s.space()
		key, escaped, ok := s.str()
		if !ok || escaped || !s.next(':') || !field(key) {
			return false
		}
		if s.next('}') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// first records field bit in seen and reports whether it was not there yet.
func first(seen *uint8, bit uint8) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// unknown skips the value of a key that is none of known. A key encoding/json would match to one
// of them case-insensitively, or any key that is not ASCII, ends the scan.
func (s *jsonScan) unknown(key []byte, known ...string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	for _, k := range known {
		if len(key) == len(k) && bytes.EqualFold(key, []byte(k)) {
			return false
		}
	}
	return s.skip(0)
}

// str reads a string and returns its bytes between the quotes (escapes left as they are), and
// whether it holds any escape. Control characters and malformed escapes end the scan.
func (s *jsonScan) str() (raw []byte, escaped, ok bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, false
	}
	start := s.i + 1
	for i := start; i < len(s.b); i++ {
		switch c := s.b[i]; {
		case c == '"':
			s.i = i + 1
			return s.b[start:i], escaped, true
		case c == '\\':
			escaped = true
			i++
			if i >= len(s.b) {
				return nil, false, false
			}
			switch s.b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(s.b) {
					return nil, false, false
				}
				for _, h := range s.b[i+1 : i+5] {
					if !isHex(h) {
						return nil, false, false
					}
				}
				i += 4
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		}
	}
	return nil, false, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// text reads a wireText: a string kept byte for byte (see wireText), or null as "".
func (s *jsonScan) text(t *wireText) bool {
	s.space()
	if s.literal("null") {
		*t = ""
		return true
	}
	at := s.i
	raw, escaped, ok := s.str()
	if !ok {
		return false
	}
	if !escaped {
		*t = wireText(raw)
		return true
	}
	return t.UnmarshalJSON(s.b[at:s.i]) == nil
}

// plainString reads a string field as encoding/json would into a string: null leaves it as it is;
// a string with escapes or bytes that are not UTF-8 (which encoding/json rewrites) ends the scan.
func (s *jsonScan) plainString(out *string) bool {
	s.space()
	if s.literal("null") {
		return true
	}
	raw, escaped, ok := s.str()
	if !ok || escaped || !utf8.Valid(raw) {
		return false
	}
	*out = string(raw)
	return true
}

// integer reads a JSON integer that fits an int (up to 15 digits). A fraction, an exponent or
// null (which encoding/json treats in its own ways) ends the scan.
func (s *jsonScan) integer(out *int) bool {
	s.space()
	neg := s.i < len(s.b) && s.b[s.i] == '-'
	if neg {
		s.i++
	}
	start, v := s.i, 0
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		v = v*10 + int(s.b[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || digits > 15 || digits > 1 && s.b[start] == '0' {
		return false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return false
	}
	if neg {
		v = -v
	}
	*out = v
	return true
}

// literal consumes word (true, false, null) when it comes next.
func (s *jsonScan) literal(word string) bool {
	if bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		s.i += len(word)
		return true
	}
	return false
}

// skip reads and checks any value, keeping nothing.
func (s *jsonScan) skip(depth int) bool {
	if depth > maxSkipDepth {
		return false
	}
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, _, ok := s.str()
		return ok
	case c == '{':
		s.i++
		if s.next('}') {
			return true
		}
		for {
			s.space()
			if _, _, ok := s.str(); !ok || !s.next(':') || !s.skip(depth+1) {
				return false
			}
			if s.next('}') {
				return true
			}
			if !s.next(',') {
				return false
			}
		}
	case c == '[':
		s.i++
		if s.next(']') {
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			if s.next(']') {
				return true
			}
			if !s.next(',') {
				return false
			}
		}
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.number()
}

// number reads a JSON number: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?
func (s *jsonScan) number() bool {
	digits := func() int {
		start := s.i
		for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
			s.i++
		}
		return s.i - start
	}
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	start := s.i
	if n := digits(); n == 0 || n > 1 && s.b[start] == '0' {
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}

// choices reads the choices array; null, or an element that is not an object, ends the scan.
func (s *jsonScan) choices(out *[]chunkChoice) bool {
	if !s.next('[') {
		return false
	}
	list := make([]chunkChoice, 0, 1)
	if !s.next(']') {
		for {
			var ch chunkChoice
			var seen uint8
			if !s.object(func(key []byte) bool {
				switch string(key) {
				case "index":
					return first(&seen, 1) && s.integer(&ch.Index)
				case "delta":
					return first(&seen, 2) && s.delta(&ch.Delta)
				case "finish_reason":
					return first(&seen, 4) && s.plainString(&ch.FinishReason)
				}
				return s.unknown(key, "index", "delta", "finish_reason")
			}) {
				return false
			}
			list = append(list, ch)
			if s.next(']') {
				break
			}
			if !s.next(',') {
				return false
			}
		}
	}
	*out = list
	return true
}

// delta reads a text delta. Tool calls (and a null delta) end the scan: they are rare beside text
// deltas, and encoding/json reads them.
func (s *jsonScan) delta(d *chunkDelta) bool {
	var seen uint8
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "content":
			if !first(&seen, 1) {
				return false
			}
			s.space()
			at := s.i
			if !s.text(&d.Content) {
				return false
			}
			if s.b[at] == '"' {
				s.content = [2]int{at, s.i}
			}
			return true
		case "refusal":
			return first(&seen, 2) && s.text(&d.Refusal)
		case "reasoning_content":
			return first(&seen, 4) && s.text(&d.ReasoningContent)
		case "reasoning":
			return first(&seen, 8) && s.text(&d.Reasoning)
		}
		return s.unknown(key, "content", "refusal", "reasoning_content", "reasoning", "tool_calls")
	})
}

// usage reads the usage object, or null (no usage).
func (s *jsonScan) usage(out **wireUsage) bool {
	s.space()
	if s.literal("null") {
		return true
	}
	u := &wireUsage{}
	var seen uint8
	if !s.object(func(key []byte) bool {
		switch string(key) {
		case "prompt_tokens":
			return first(&seen, 1) && s.integer(&u.PromptTokens)
		case "completion_tokens":
			return first(&seen, 2) && s.integer(&u.CompletionTokens)
		case "total_tokens":
			return first(&seen, 4) && s.integer(&u.TotalTokens)
		}
		return s.unknown(key, "prompt_tokens", "completion_tokens", "total_tokens")
	}) {
		return false
	}
	*out = u
	return true
}
