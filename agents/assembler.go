package agents

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// assembler builds a Result from the pieces of one stream and forwards each piece to emit as an
// Event. Every provider feeds one, so all three share the completeness rule and the event order.
// Each feeding method returns emit's error; the provider must stop reading when it is not nil.
type assembler struct {
	emit      func(Event) error
	content   strings.Builder
	reasoning strings.Builder
	calls     []*callState // in order of first appearance
	finish    string
	usage     *Usage
	err       *UpstreamError // the first upstream failure
	stopped   error          // emit's error, which ends the stream
	ended     bool           // the upstream's end marker arrived ([DONE], message_stop)
	tags      thinkTags      // inline <think> reasoning inside the answer text
	harmony   harmonyText    // gpt-oss's harmony markers, rewritten into <think> tags
	refusal   strings.Builder
	thinking  []ThinkingBlock // Anthropic's signed blocks, in order
	// Bytes of a UTF-8 sequence that a fragment cut short, held for the next fragment. JSON
	// strings should not carry raw partial sequences, but the SDKs' decoders pass them through.
	textCarry, thinkCarry []byte
}

type callState struct {
	call  ToolCall
	wire  int // the upstream's index for it, -1 when it sent none
	args  strings.Builder
	ended bool
}

func newAssembler(emit func(Event) error) *assembler {
	if emit == nil {
		emit = func(Event) error { return nil }
	}
	return &assembler{emit: emit}
}

func (a *assembler) send(ev Event) error {
	if a.stopped != nil {
		return a.stopped
	}
	if err := a.emit(ev); err != nil {
		a.stopped = err
		return err
	}
	return nil
}

// text appends an answer fragment, less any inline <think> reasoning (or harmony analysis) in it,
// which goes to the reasoning; "" adds nothing and emits nothing.
func (a *assembler) text(s string) error {
	s = a.harmony.feed(wholeRunes(&a.textCarry, s))
	if s == "" {
		return nil
	}
	return a.pieces(a.tags.feed(s))
}

func (a *assembler) pieces(ps []thinkPiece) error {
	for _, p := range ps {
		var err error
		switch p.kind {
		case pieceAnswer:
			a.content.WriteString(p.text)
			err = a.send(Event{Kind: EventTextDelta, Text: p.text})
		case pieceReasoning:
			err = a.reason(p.text)
		case pieceWasReasoning:
			moved := a.content.String()
			if moved == "" {
				continue
			}
			a.content.Reset()
			a.reasoning.WriteString(moved)
			err = a.send(Event{Kind: EventTextWasReasoning, Text: moved})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// think appends a fragment of reasoning sent in its own field or block; "" adds nothing and
// emits nothing.
func (a *assembler) think(s string) error {
	return a.reason(wholeRunes(&a.thinkCarry, s))
}

func (a *assembler) reason(s string) error {
	if s == "" {
		return nil
	}
	a.reasoning.WriteString(s)
	return a.send(Event{Kind: EventReasoningDelta, Text: s})
}

// refuse appends a fragment of a refusal (OpenAI's delta.refusal): the model declined, and the
// stream fails with kind refusal quoting it.
func (a *assembler) refuse(s string) {
	a.refusal.WriteString(s)
}

// wholeRunes prefixes s with the bytes carried from the last fragment and returns the longest
// prefix that ends on a whole UTF-8 sequence, carrying the rest (at most 3 bytes): a character's
// bytes cut short, or a high surrogate that wireText kept because its low half may start the next
// fragment. Bytes that can never form a character become U+FFFD.
func wholeRunes(carry *[]byte, s string) string {
	if len(*carry) == 0 && utf8.ValidString(s) {
		return s
	}
	b := joinSurrogates(append(*carry, s...))
	cut := len(b)
	if n := len(b); n >= 3 && isHighSurrogate(b[n-3:]) {
		cut = n - 3
	} else {
		for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
			if utf8.RuneStart(b[i]) {
				if !utf8.FullRune(b[i:]) {
					cut = i
				}
				break
			}
		}
	}
	*carry = append([]byte(nil), b[cut:]...)
	return strings.ToValidUTF8(string(b[:cut]), "\uFFFD")
}

// validText is s as valid UTF-8: surrogate halves joined, anything else that is not UTF-8 U+FFFD.
// Every text a Result holds passes through it or wholeRunes, because PostgreSQL refuses to store
// bytes that are not UTF-8.
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(string(joinSurrogates([]byte(s))), "\uFFFD")
}

// joinSurrogates replaces each WTF-8 high surrogate followed by a low one (see wireText) with the
// UTF-8 of the character the pair encodes, in place.
func joinSurrogates(b []byte) []byte {
	out := b[:0]
	for i := 0; i < len(b); {
		if i+6 <= len(b) && isHighSurrogate(b[i:i+3]) && isLowSurrogate(b[i+3:i+6]) {
			hi := rune(b[i+1]&0x0F)<<6 | rune(b[i+2]&0x3F) | 0xD800
			lo := rune(b[i+4]&0x0F)<<6 | rune(b[i+5]&0x3F) | 0xDC00
			out = utf8.AppendRune(out, utf16.DecodeRune(hi, lo))
			i += 6
			continue
		}
		out = append(out, b[i])
		i++
	}
	return out
}

func isHighSurrogate(b []byte) bool { return b[0] == 0xED && b[1]&0xF0 == 0xA0 && b[2]&0xC0 == 0x80 }
func isLowSurrogate(b []byte) bool  { return b[0] == 0xED && b[1]&0xF0 == 0xB0 && b[2]&0xC0 == 0x80 }

// openCall begins a tool call (its Index is its place in arrival order) and emits its start. wire
// is the index the upstream gave it, -1 for none.
func (a *assembler) openCall(wire int, id, name string) (*callState, error) {
	c := &callState{call: ToolCall{Index: len(a.calls), ID: id, Name: name}, wire: wire}
	a.calls = append(a.calls, c)
	ev := c.call
	return c, a.send(Event{Kind: EventToolCallStart, ToolCall: &ev})
}

// toolArgs appends an arguments fragment to c.
func (a *assembler) toolArgs(c *callState, fragment string) error {
	if fragment == "" {
		return nil
	}
	c.args.WriteString(fragment)
	ev := c.call
	ev.Arguments = fragment
	return a.send(Event{Kind: EventToolCallDelta, ToolCall: &ev})
}

// toolEnd closes c and emits it whole. A call without arguments gets "{}".
func (a *assembler) toolEnd(c *callState) error {
	if c == nil || c.ended {
		return nil
	}
	c.ended = true
	ev := c.call
	ev.Arguments = argumentsOf(c)
	return a.send(Event{Kind: EventToolCallEnd, ToolCall: &ev})
}

func argumentsOf(c *callState) string {
	if c.args.Len() == 0 {
		return "{}"
	}
	return validText(c.args.String())
}

// setUsage replaces the usage so far (upstreams send cumulative counts).
func (a *assembler) setUsage(u Usage) error {
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	a.usage = &u
	ev := u
	return a.send(Event{Kind: EventUsage, Usage: &ev})
}

// setFinish records a finish reason; "" (JSON null) never clears an earlier one.
func (a *assembler) setFinish(reason string) {
	if reason != "" {
		a.finish = reason
	}
}

// fail records an upstream failure; the first one wins.
func (a *assembler) fail(err *UpstreamError) {
	if a.err == nil {
		a.err = err
	}
}

// result classifies how the stream ended and sends the terminal event (see Result):
//   - emit refused an event: canceled;
//   - an upstream error, a content filter stop or a refusal: failed with that reason;
//   - neither a finish reason nor an end marker (the body just ended): incomplete;
//   - a token-limit finish: complete but Truncated, unless the limit left no answer at all
//     (often all of it went to reasoning), which fails with kind token_limit saying so;
//   - else complete, with or without a finish reason.
//
// Open tool calls are closed (tool_call_end) just before finish.
func (a *assembler) result() (Result, error) {
	// A sequence still cut short at the end can no longer be completed.
	if len(a.textCarry) > 0 {
		a.textCarry = nil
		_ = a.text("\uFFFD")
	}
	if len(a.thinkCarry) > 0 {
		a.thinkCarry = nil
		_ = a.think("\uFFFD")
	}
	if held := a.harmony.flush(); held != "" {
		_ = a.pieces(a.tags.feed(held))
	}
	_ = a.pieces(a.tags.flush())
	truncated := cutShort(a.finish)
	if a.stopped == nil && a.err == nil {
		a.classify(truncated)
	}
	if a.stopped == nil && a.err == nil {
		for _, c := range a.calls {
			if a.toolEnd(c) != nil {
				break
			}
		}
		_ = a.send(Event{Kind: EventFinish, FinishReason: a.finish})
	} else if a.stopped == nil {
		_ = a.send(Event{Kind: EventError, Err: a.err})
	}

	res := Result{
		Content:      a.content.String(),
		Reasoning:    a.reasoning.String(),
		Thinking:     a.thinking,
		FinishReason: a.finish,
		Usage:        a.usage,
	}
	for _, c := range a.calls {
		call := c.call
		call.Arguments = validText(c.args.String())
		if c.ended {
			call.Arguments = argumentsOf(c)
		}
		res.ToolCalls = append(res.ToolCalls, call)
	}
	slices.SortStableFunc(res.ToolCalls, func(x, y ToolCall) int { return cmp.Compare(x.Index, y.Index) })

	switch {
	case a.stopped != nil:
		res.Err = &UpstreamError{Kind: KindCanceled, Message: "The answer was stopped.", Err: a.stopped}
	case a.err != nil:
		res.Err = a.err
	default:
		res.Complete, res.Truncated = true, truncated
		return res, nil
	}
	return res, res.Err
}

// cutShort reports whether a finish reason says the model stopped at a limit, not at its answer's
// end: "length" (OpenAI-compatible), "max_tokens" (Anthropic; "MAX_TOKENS" from gateways that pass
// Gemini's reason through) and "model_context_window_exceeded" (Anthropic, when the context window
// filled before max_tokens).
func cutShort(finish string) bool {
	switch strings.ToLower(finish) {
	case "length", "max_tokens", "model_context_window_exceeded":
		return true
	}
	return false
}

// classify records a failure for a stream that ended without an error event but not well.
func (a *assembler) classify(truncated bool) {
	switch {
	case a.finish == "content_filter":
		a.fail(&UpstreamError{Kind: KindContentFilter, Code: a.finish, Message: "The model provider's content filter stopped this answer."})
	case a.refusal.Len() > 0:
		a.fail(&UpstreamError{Kind: KindRefusal, Code: "refusal", Message: "The model declined to answer: " + clip(strings.TrimSpace(validText(a.refusal.String())), 500)})
	case a.finish == "refusal":
		a.fail(&UpstreamError{Kind: KindRefusal, Code: a.finish, Message: "The model declined to answer."})
	case a.finish == "" && !a.ended:
		a.fail(&UpstreamError{Kind: KindIncompleteStream, Message: "The model's stream ended before the answer was finished."})
	case truncated && strings.TrimSpace(a.content.String()) == "" && len(a.calls) == 0:
		msg := "The model reached its token limit before writing any answer."
		if a.reasoning.Len() > 0 {
			msg = "The model spent its whole token budget on reasoning and wrote no answer."
		}
		a.fail(&UpstreamError{Kind: KindTokenLimit, Code: a.finish, Message: msg})
	}
}

// stop records why reading ended early (ctx, idle watchdog or a broken connection) and returns
// the Result. cause is the read error. A connection that breaks after the finish reason arrived
// lost nothing of the answer, so that stream still completes.
func (a *assembler) stop(ctx context.Context, idle *idleWatch, cause error) (Result, error) {
	if a.finish == "" || ctx.Err() != nil || (idle != nil && idle.fired()) {
		a.fail(stoppedError(ctx, cause))
	}
	return a.result()
}
