package agents

import (
	"cmp"
	"context"
	"slices"
	"strings"
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
	// Bytes of a UTF-8 sequence that a fragment cut short, held for the next fragment. JSON
	// strings should not carry raw partial sequences, but the SDKs' decoders pass them through.
	textCarry, thinkCarry []byte
}

type callState struct {
	call  ToolCall
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

// text appends an answer fragment; "" adds nothing and emits nothing.
func (a *assembler) text(s string) error {
	s = wholeRunes(&a.textCarry, s)
	if s == "" {
		return nil
	}
	a.content.WriteString(s)
	return a.send(Event{Kind: EventTextDelta, Text: s})
}

// think appends a reasoning fragment; "" adds nothing and emits nothing.
func (a *assembler) think(s string) error {
	s = wholeRunes(&a.thinkCarry, s)
	if s == "" {
		return nil
	}
	a.reasoning.WriteString(s)
	return a.send(Event{Kind: EventReasoningDelta, Text: s})
}

// wholeRunes prefixes s with the bytes carried from the last fragment and returns the longest
// prefix that ends on a whole UTF-8 sequence, carrying the rest (at most 3 bytes). Bytes that can
// never form a character become U+FFFD.
func wholeRunes(carry *[]byte, s string) string {
	if len(*carry) == 0 && utf8.ValidString(s) {
		return s
	}
	b := append(*carry, s...)
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	*carry = append([]byte(nil), b[cut:]...)
	return strings.ToValidUTF8(string(b[:cut]), "\uFFFD")
}

func (a *assembler) call(index int) *callState {
	for _, c := range a.calls {
		if c.call.Index == index {
			return c
		}
	}
	return nil
}

// toolStart opens the call at index, or fills in an id or name that arrives late.
func (a *assembler) toolStart(index int, id, name string) error {
	if c := a.call(index); c != nil {
		if c.call.ID == "" {
			c.call.ID = id
		}
		if c.call.Name == "" {
			c.call.Name = name
		}
		return nil
	}
	c := &callState{call: ToolCall{Index: index, ID: id, Name: name}}
	a.calls = append(a.calls, c)
	ev := c.call
	return a.send(Event{Kind: EventToolCallStart, ToolCall: &ev})
}

// toolArgs appends an arguments fragment to the call at index, opening it if needed.
func (a *assembler) toolArgs(index int, fragment string) error {
	c := a.call(index)
	if c == nil {
		if err := a.toolStart(index, "", ""); err != nil {
			return err
		}
		c = a.call(index)
	}
	if fragment == "" {
		return nil
	}
	c.args.WriteString(fragment)
	ev := c.call
	ev.Arguments = fragment
	return a.send(Event{Kind: EventToolCallDelta, ToolCall: &ev})
}

// toolEnd closes the call at index and emits it whole. A call without arguments gets "{}".
func (a *assembler) toolEnd(index int) error {
	c := a.call(index)
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
	return c.args.String()
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

// result applies the completeness rule and sends the terminal event. A stream is complete when a
// finish reason arrived and no error did; a content filter stop counts as an error. Open tool calls
// are closed (tool_call_end) just before finish.
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
	if a.stopped == nil && a.err == nil {
		switch {
		case a.finish == "":
			a.fail(&UpstreamError{Kind: KindIncompleteStream, Message: "The model's stream ended before the answer was finished."})
		case a.finish == "content_filter" || a.finish == "refusal":
			a.fail(&UpstreamError{Kind: KindContentFilter, Code: a.finish, Message: "The model provider's content filter stopped this answer."})
		}
	}
	if a.stopped == nil && a.err == nil {
		for _, c := range a.calls {
			if a.toolEnd(c.call.Index) != nil {
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
		FinishReason: a.finish,
		Usage:        a.usage,
	}
	for _, c := range a.calls {
		call := c.call
		call.Arguments = c.args.String()
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
		res.Complete = true
		return res, nil
	}
	return res, res.Err
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
