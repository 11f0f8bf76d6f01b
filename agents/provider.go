// Package agents holds Parley's model layer: the streaming Provider contract and its three
// implementations (offline, OpenAI-compatible, Anthropic), plus the agent logic built on them.
//
// Every provider turns one Request into a stream of Events and an assembled Result. The same agent
// loop drives all of them: send the Request, show the events as they arrive, and when the Result
// holds ToolCalls, run them, append the assistant and tool Messages and ask again.
package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// EventKind names one streamed item.
type EventKind string

// The event kinds, in the order a stream may produce them. A stream ends with exactly one
// terminal event: EventFinish when the Result is complete, EventError otherwise. The one
// exception is a stream stopped by its own emit callback, which gets no terminal event.
const (
	EventTextDelta      EventKind = "text_delta"      // Text: the next fragment of the answer
	EventReasoningDelta EventKind = "reasoning_delta" // Text: the next fragment of the model's visible reasoning
	// Text: the whole answer text this stream had sent so far, which a closing </think> without an
	// opening tag (QwQ, Qwen3: their chat template opens it) shows to have been reasoning. It leaves
	// the answer and is appended to the reasoning; receivers move it. At most once per stream.
	EventTextWasReasoning EventKind = "text_was_reasoning"
	EventToolCallStart    EventKind = "tool_call_start" // ToolCall: Index, ID, Name known so far; Arguments ""
	EventToolCallDelta    EventKind = "tool_call_delta" // ToolCall: Index, ID, Name; Arguments = the new fragment
	EventToolCallEnd      EventKind = "tool_call_end"   // ToolCall: the whole call; Arguments = the full JSON string
	EventUsage            EventKind = "usage"           // Usage: token counts so far; each usage event replaces the last
	EventFinish           EventKind = "finish"          // FinishReason: as the upstream sent it ("stop", "tool_calls", "length", "tool_use" …)
	EventError            EventKind = "error"           // Err: an *UpstreamError
)

// Event is one streamed item. Which fields are set depends on Kind (see the EventKind constants).
// Text fragments are whole UTF-8 sequences: a fragment never ends inside a multi-byte character.
type Event struct {
	Kind         EventKind
	Text         string
	ToolCall     *ToolCall // a copy; the receiver may keep it
	Usage        *Usage
	FinishReason string
	Err          error
}

// ToolCall is a function call the model asked for. Index is the call's place among the answer's
// calls in the order they began (0, 1, …), whatever the wire numbered them: OpenAI-compatible
// servers send an index, several calls at one index with different ids (some Ollama versions), or
// no index at all (Gemini). ID is the upstream's call id, to be echoed in the tool Message that
// answers it ("" when the server sent none). Arguments is the JSON object text exactly as the model
// wrote it; check it with CheckArguments before running the tool. Extra holds provider fields a
// follow-up request must send back with the call (Gemini's extra_content with its
// google.thought_signature), as raw JSON; nil when there are none.
type ToolCall struct {
	Index     int
	ID        string
	Name      string
	Arguments string
	Extra     json.RawMessage
}

// CheckArguments reports whether Arguments is one JSON object, as a tool needs it. The error says
// what is wrong in words a person and the model can act on.
func (c ToolCall) CheckArguments() error {
	dec := json.NewDecoder(strings.NewReader(c.Arguments))
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		return fmt.Errorf("the arguments of %s are not a JSON object: %s", c.Name, clip(c.Arguments, 200))
	}
	if dec.More() {
		return fmt.Errorf("the arguments of %s hold more than one JSON value: %s", c.Name, clip(c.Arguments, 200))
	}
	if args == nil {
		return fmt.Errorf("the arguments of %s are null, want a JSON object", c.Name)
	}
	return nil
}

// ThinkingBlock is one of Anthropic's signed reasoning blocks, which must be sent back unchanged
// with the assistant turn that made them when that turn used tools. Type is "thinking" (Thinking
// is the text, Signature its signature) or "redacted_thinking" (Data is opaque and never shown).
type ThinkingBlock struct {
	Type      string
	Thinking  string
	Signature string
	Data      string
}

// Usage counts tokens as the upstream reported them. For the offline provider one word is one token.
// PromptTokens includes cached prompt tokens; CompletionTokens includes reasoning tokens.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
}

// Tool describes a function the model may call. Parameters is a JSON Schema object
// ({"type":"object","properties":{…},"required":[…]}).
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one item of the conversation sent to a model. Role is RoleSystem, RoleUser,
// RoleAssistant or RoleTool. An assistant message may carry the ToolCalls it made, and the
// reasoning that came before them: Thinking, Anthropic's signed blocks, and Reasoning, the text an
// OpenAI-compatible server streamed as reasoning, which goes back as the message's
// reasoning_content (DeepSeek's thinking mode answers 400 without it once a turn calls tools); both
// only within the tool round that made them. A tool message carries the result (usually JSON) in
// Content and the call it answers in ToolCallID.
type Message struct {
	Role       string
	Content    string
	ToolCalls  []ToolCall
	ToolCallID string
	Thinking   []ThinkingBlock
	Reasoning  string
}

// Request is one model call. Model overrides the provider's configured model when not empty.
// System is the system prompt, sent ahead of Messages. MaxTokens caps the answer; 0 means the
// provider's default (Anthropic requires a cap, so 0 becomes DefaultMaxTokens there). Think asks
// for the model's reasoning where the provider must be asked for it (Anthropic's extended thinking,
// with Config.ThinkingBudget); other providers reason or not by model.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []Tool
	MaxTokens int
	Think     bool
}

// Result is what a stream assembled. Content is the answer text (the text_delta fragments, less
// a text_was_reasoning move) and Reasoning the reasoning (reasoning_delta fragments and moved
// text), from dedicated fields, thinking blocks or inline <think> tags alike. Thinking holds
// Anthropic's signed blocks, to send back with a tool-use turn. ToolCalls are ordered by Index.
// FinishReason is the last finish reason the upstream sent, "" if none. Usage is nil when the
// upstream reported none.
//
// How the stream ended: Complete is true when the upstream said the answer ended (a finish reason,
// or the stream's own end marker: [DONE], message_stop) and no error came; then Err is nil.
// Truncated is true, with Complete, when the model stopped at its token limit (finish reason
// "length", "max_tokens" or Anthropic's "model_context_window_exceeded"): the text is whole so far
// but cut, and its tool calls are not to be run. Otherwise Err is an *UpstreamError saying why (see ErrorKind) and Content keeps the partial
// text, so a cut answer is stored as failed, never as finished.
type Result struct {
	Content      string
	Reasoning    string
	Thinking     []ThinkingBlock
	ToolCalls    []ToolCall
	FinishReason string
	Usage        *Usage
	Complete     bool
	Truncated    bool
	Err          error
}

// Provider streams model answers. Implementations are safe for concurrent use.
type Provider interface {
	// Name is "offline", "openai" or "anthropic".
	Name() string
	// Model is the configured model id ("offline" for the offline provider).
	Model() string
	// Stream sends the request and calls emit for each event as it arrives; it returns the
	// assembled Result. The returned error is Result.Err: nil exactly when Result.Complete.
	// A non-nil emit error stops the stream (Err is then an *UpstreamError of kind canceled that
	// wraps it). ctx cancellation stops it too, promptly (kind canceled, or timeout for a deadline);
	// Result keeps the partial text.
	Stream(ctx context.Context, req Request, emit func(Event) error) (Result, error)
}
