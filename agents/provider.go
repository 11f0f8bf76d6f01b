// Package agents holds Parley's model layer: the streaming Provider contract and its three
// implementations (offline, OpenAI-compatible, Anthropic), plus the agent logic built on them.
//
// Every provider turns one Request into a stream of Events and an assembled Result. The same agent
// loop drives all of them: send the Request, show the events as they arrive, and when the Result
// holds ToolCalls, run them, append the assistant and tool Messages and ask again.
package agents

import "context"

// EventKind names one streamed item.
type EventKind string

// The event kinds, in the order a stream may produce them. A stream ends with exactly one
// terminal event: EventFinish when the Result is complete, EventError otherwise. The one
// exception is a stream stopped by its own emit callback, which gets no terminal event.
const (
	EventTextDelta      EventKind = "text_delta"      // Text: the next fragment of the answer
	EventReasoningDelta EventKind = "reasoning_delta" // Text: the next fragment of the model's visible reasoning
	EventToolCallStart  EventKind = "tool_call_start" // ToolCall: Index, ID, Name known so far; Arguments ""
	EventToolCallDelta  EventKind = "tool_call_delta" // ToolCall: Index, ID, Name; Arguments = the new fragment
	EventToolCallEnd    EventKind = "tool_call_end"   // ToolCall: the whole call; Arguments = the full JSON string
	EventUsage          EventKind = "usage"           // Usage: token counts so far; each usage event replaces the last
	EventFinish         EventKind = "finish"          // FinishReason: as the upstream sent it ("stop", "tool_calls", "length", "tool_use" …)
	EventError          EventKind = "error"           // Err: an *UpstreamError
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

// ToolCall is a function call the model asked for. Index orders calls within one answer (the wire's
// tool_calls[].index for OpenAI-compatible servers, the order of tool_use blocks for Anthropic). ID
// is the upstream's call id, to be echoed in the tool Message that answers it. Arguments is the
// JSON object text exactly as the model wrote it; it is valid JSON only once the call has ended.
type ToolCall struct {
	Index     int
	ID        string
	Name      string
	Arguments string
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
// RoleAssistant or RoleTool. An assistant message may carry the ToolCalls it made; a tool message
// carries the result (usually JSON) in Content and the call it answers in ToolCallID.
type Message struct {
	Role       string
	Content    string
	ToolCalls  []ToolCall
	ToolCallID string
}

// Request is one model call. Model overrides the provider's configured model when not empty.
// System is the system prompt, sent ahead of Messages. MaxTokens caps the answer; 0 means the
// provider's default (Anthropic requires a cap, so 0 becomes DefaultMaxTokens there).
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []Tool
	MaxTokens int
}

// Result is what a stream assembled. Content and Reasoning are the exact concatenations of the
// text_delta and reasoning_delta fragments. ToolCalls are ordered by Index. FinishReason is the last
// finish reason the upstream sent, "" if none. Usage is nil when the upstream reported none.
//
// Complete is true when a finish reason arrived and no error did; then Err is nil. Otherwise Err is
// an *UpstreamError and Content keeps the partial text, so a cut answer can be stored as failed,
// never as finished. The ToolCalls of a failed stream may be cut short: run them only when Complete.
type Result struct {
	Content      string
	Reasoning    string
	ToolCalls    []ToolCall
	FinishReason string
	Usage        *Usage
	Complete     bool
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
