package agents

import "strings"

// harmonyText rewrites the markers of OpenAI's harmony format (gpt-oss models) into the inline
// <think> tags thinkTags reads. Servers that do not parse the format (llama.cpp and LM Studio
// builds without gpt-oss support, vLLM or proxies that pass the text through) stream it as the
// answer text:
//
//	<|channel|>analysis<|message|>reasoning<|end|><|start|>assistant<|channel|>final<|message|>answer<|return|>
//
// which would show the reasoning and the markers as the answer. It acts only on a text that opens
// with a marker (after whitespace), so any other answer passes through untouched and unscanned; a
// marker cut across deltas is held until it is whole. Markers it does not know stay text.
type harmonyText struct {
	state    harmonyState
	held     string // the end of the input: leading whitespace, or the start of a marker
	analysis bool   // inside the analysis channel: <|end|> closes the reasoning
}

type harmonyState int

const (
	harmonyUndecided harmonyState = iota // only whitespace so far
	harmonyOn                            // the text opened with a marker
	harmonyOff                           // any other text: passed through
)

// harmonyMarkers are the markers harmonyText replaces, longest first where one begins another.
var harmonyMarkers = []string{
	"<|channel|>analysis<|message|>",
	"<|channel|>final<|message|>",
	"<|start|>assistant",
	"<|return|>",
	"<|end|>",
}

// feed rewrites the next fragment; the result may be "" while a marker is held.
func (h *harmonyText) feed(s string) string {
	if h.state == harmonyOff {
		return s
	}
	buf := h.held + s
	h.held = ""
	if h.state == harmonyUndecided {
		head := strings.TrimLeft(buf, " \t\r\n")
		switch {
		case strings.HasPrefix(head, "<|channel|>") || strings.HasPrefix(head, "<|start|>"):
			h.state, buf = harmonyOn, head
		case strings.HasPrefix("<|channel|>", head) || strings.HasPrefix("<|start|>", head): // "" too
			h.held = buf
			return ""
		default:
			h.state = harmonyOff
			return buf
		}
	}
	var out strings.Builder
	for {
		i := strings.Index(buf, "<|")
		if i < 0 {
			if strings.HasSuffix(buf, "<") { // may begin a marker
				buf, h.held = buf[:len(buf)-1], "<"
			}
			out.WriteString(buf)
			return out.String()
		}
		out.WriteString(buf[:i])
		rest := buf[i:]
		marker, partial := harmonyMarker(rest)
		switch {
		case partial:
			h.held = rest
			return out.String()
		case marker == "":
			out.WriteString("<|")
			buf = rest[2:]
			continue
		case marker == harmonyMarkers[0]:
			out.WriteString(thinkOpen)
			h.analysis = true
		case marker == "<|end|>" && h.analysis:
			out.WriteString(thinkClose)
			h.analysis = false
		}
		buf = rest[len(marker):]
	}
}

// harmonyMarker is the marker rest begins with ("" for none), or partial when rest is shorter
// than a marker it begins.
func harmonyMarker(rest string) (marker string, partial bool) {
	for _, m := range harmonyMarkers {
		if strings.HasPrefix(rest, m) {
			return m, false
		}
		if len(rest) < len(m) && strings.HasPrefix(m, rest) {
			partial = true
		}
	}
	return "", partial
}

// flush ends the text: what is held was no marker and is text.
func (h *harmonyText) flush() string {
	held := h.held
	h.held = ""
	return held
}
