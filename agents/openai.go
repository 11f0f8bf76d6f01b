package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// OpenAI streams from an OpenAI-compatible Chat Completions endpoint (POST {BaseURL}/chat/completions
// with "stream": true): OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, DeepSeek …
//
// The SDK builds and sends the request (auth, retries on 408/409/429/5xx and connection errors,
// base URL) and the request types; the body is read by our own event-stream decoder, because the
// SDK's decoder does not accept a lone CR as a line end and ends at an in-stream error without
// the finish reason that came with it. Reasoning is read from the delta's "reasoning_content"
// (DeepSeek, older vLLM) or else "reasoning" (OpenRouter, Ollama, newer vLLM), fields the SDK's
// types do not declare, from the thinking parts of a content sent as an array of parts (Mistral),
// and from <think> tags inside the content (think_tags.go). Tool calls are
// assembled as toolCallOf says; a server that ignores "stream": true is read as one chunk.
type OpenAI struct {
	client   openai.Client
	model    string
	key      string
	official bool // api.openai.com: caps the answer with max_completion_tokens, not max_tokens
	idle     silenceLimits
	baseHint string // what to check when nothing answers at the base URL (see openAIBaseHint)
}

// DefaultOpenAIBaseURL is used when Config.BaseURL is empty.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

func newOpenAI(cfg Config, baseURL *url.URL) *OpenAI {
	opts := []option.RequestOption{
		option.WithBaseURL(baseURL.String()),
		// Always set, even empty, so an OPENAI_API_KEY in the environment is never sent to a
		// server the person did not configure it for. Empty sends no Authorization header.
		option.WithAPIKey(cfg.APIKey),
	}
	opts = append(opts, option.WithHTTPClient(httpClient(cfg)))
	return &OpenAI{
		client:   openai.NewClient(opts...),
		model:    cfg.Model,
		key:      cfg.APIKey,
		official: baseURL.Host == "api.openai.com",
		idle:     idleLimit(cfg),
		baseHint: openAIBaseHint(baseURL),
	}
}

// openAIBaseHint says how to fix a base URL at which nothing answers POST …/chat/completions,
// from the mistakes people make: the whole endpoint URL, Ollama's native API (/api), no /v1.
func openAIBaseHint(base *url.URL) string {
	path := strings.TrimSuffix(base.Path, "/")
	const example = " (e.g. http://localhost:11434/v1 for Ollama)"
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return "Set PARLEY_OPENAI_BASE_URL without /chat/completions, which Parley adds" + example + "."
	case slices.Contains(strings.Split(path, "/"), "api"):
		return "Ollama's native API (/api) is not OpenAI-compatible: set PARLEY_OPENAI_BASE_URL to its /v1 endpoint" + example + "."
	}
	return "Check PARLEY_OPENAI_BASE_URL: Parley adds /chat/completions to it, and most servers serve that under /v1" + example + "."
}

// Name returns "openai".
func (p *OpenAI) Name() string { return "openai" }

// Model returns the configured model id.
func (p *OpenAI) Model() string { return p.model }

// Stream implements Provider.
func (p *OpenAI) Stream(ctx context.Context, req Request, emit func(Event) error) (Result, error) {
	a := newAssembler(emit)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := newIdleWatch(p.idle, cancel) // armed before the request: a silent upstream times out too
	defer idle.Stop()

	var resp *http.Response
	stream := p.client.Chat.Completions.NewStreaming(ctx, p.params(req), option.WithResponseInto(&resp),
		option.WithMiddleware(retryWithin(time.Now().Add(p.idle.FirstByte))))
	defer stream.Close() // closes the body we read below
	if !a.opened(ctx, stream.Err(), resp, p.key, p.baseHint) {
		return a.result()
	}
	var echo chunkEcho // the stream's chunks share an envelope
	return streamReader{
		key:  p.key,
		idle: idle,
		event: func(ev sseEvent) (bool, error) {
			if bytes.Equal(bytes.TrimSpace(ev.Data), []byte("[DONE]")) {
				return true, nil
			}
			return false, p.chunk(a, ev, &echo)
		},
		whole: func(body []byte) bool { return p.completion(a, body) },
	}.read(ctx, a, resp)
}

// chunk feeds one chat.completion.chunk (or error frame) to a, decoded through the stream's echo.
// It returns emit's error.
func (p *OpenAI) chunk(a *assembler, ev sseEvent, echo *chunkEcho) error {
	if ev.Type == "error" {
		a.fail(streamError(ev.Data, p.key))
		return nil
	}
	// c stays on the stack: a common text chunk costs no allocation beyond its text.
	var c chunkWire
	if !echo.decode(ev.Data, &c) { // not the common text shape: encoding/json decides
		var err error
		if c, err = unmarshalChunk(ev.Data); err != nil {
			a.fail(unreadableChunk(err))
			return nil
		}
	}
	for _, choice := range c.Choices {
		if choice.Index != 0 {
			continue // we never ask for n > 1
		}
		if err := p.delta(a, choice.Delta); err != nil {
			return err
		}
		a.setFinish(choice.FinishReason)
	}
	if c.Usage != nil {
		if err := a.setUsage(c.Usage.usage()); err != nil {
			return err
		}
	}
	// OpenRouter puts "error" beside choices whose finish_reason is "error"; vLLM sends a bare
	// {"error":{…}} frame. Either way the turn failed, whatever follows.
	if len(c.Error) > 0 && string(c.Error) != "null" {
		a.fail(streamError(ev.Data, p.key))
	}
	return nil
}

// unreadableChunk explains a chunk encoding/json could not read: not JSON at all, or a field of a
// type no server is known to send (naming the field, so the person can report it).
func unreadableChunk(err error) *UpstreamError {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return &UpstreamError{Kind: KindUpstreamError, Err: err,
			Message: fmt.Sprintf("The model provider sent a chunk Parley cannot read: its field %q holds a JSON %s.", typeErr.Field, typeErr.Value)}
	}
	return &UpstreamError{Kind: KindUpstreamError, Message: "The model provider sent an event that is not valid JSON.", Err: err}
}

// unmarshalChunk decodes a chunk with encoding/json (whose target escapes to the heap, so it is
// not chunk's own variable).
func unmarshalChunk(data []byte) (chunkWire, error) {
	var c chunkWire
	err := json.Unmarshal(data, &c)
	return c, err
}

// delta feeds one choice's delta (or a whole answer's message) to a.
func (p *OpenAI) delta(a *assembler, d chunkDelta) error {
	if err := a.think(string(d.reasoning())); err != nil {
		return err
	}
	if err := a.text(string(d.Content)); err != nil {
		return err
	}
	a.refuse(string(d.Refusal))
	for _, tc := range d.ToolCalls {
		c, err := toolCallOf(a, tc)
		if err != nil {
			return err
		}
		if len(tc.ExtraContent) > 0 && string(tc.ExtraContent) != "null" {
			c.call.Extra = append(json.RawMessage(nil), tc.ExtraContent...)
		}
		if err := a.toolArgs(c, string(tc.Function.Arguments)); err != nil {
			return err
		}
	}
	return nil
}

// completion reads a whole chat.completion object, sent by a server that ignored "stream": true,
// as if it had been streamed in one chunk. It reports false when body is not one.
func (p *OpenAI) completion(a *assembler, body []byte) bool {
	var doc struct {
		Choices []struct {
			Index        int        `json:"index"`
			Message      chunkDelta `json:"message"`
			FinishReason string     `json:"finish_reason"`
		} `json:"choices"`
		Usage *wireUsage `json:"usage"`
	}
	if json.Unmarshal(body, &doc) != nil || len(doc.Choices) == 0 {
		return false
	}
	a.ended = true
	for _, choice := range doc.Choices {
		if choice.Index != 0 {
			continue
		}
		if p.delta(a, choice.Message) != nil {
			return true
		}
		a.setFinish(choice.FinishReason)
	}
	if doc.Usage != nil {
		_ = a.setUsage(doc.Usage.usage())
	}
	return true
}

// toolCallOf finds the call a tool_calls fragment belongs to, the way servers really send them,
// or begins a new one. A fragment joins the call its id names; else the latest call at its index;
// else, when it has no index (Gemini), the latest call. It begins another call when it brings an
// id different from that call's with a name or after that call's arguments are whole JSON (some
// Ollama versions send every call at index 0; a fragment with a new id and neither continues the
// call, as gateways that stamp each fragment with a fresh id send them), or a name with arguments
// after that call's arguments are already whole JSON.
func toolCallOf(a *assembler, tc chunkToolCall) (*callState, error) {
	id, name := tc.ID, tc.Function.Name
	wire := -1
	if tc.Index != nil {
		wire = *tc.Index
	}
	c := matchCall(a.calls, wire, id)
	if c != nil {
		// A different id begins another call only when the fragment names its function or the
		// call so far is whole: some gateways give every fragment of one call an id of its own.
		differentID := id != "" && c.call.ID != "" && c.call.ID != id && (name != "" || json.Valid([]byte(c.args.String())))
		// A name repeated on a fragment without arguments is not a new call.
		restarts := id == "" && name != "" && tc.Function.Arguments != "" && c.call.Name != "" && c.args.Len() > 0 && json.Valid([]byte(c.args.String()))
		if !differentID && !restarts {
			if c.call.ID == "" {
				c.call.ID = id
			}
			if c.call.Name == "" {
				c.call.Name = name
			}
			return c, nil
		}
	}
	return a.openCall(wire, id, name)
}

// matchCall is the call with id, else the latest at wire index, else (no index) the latest.
func matchCall(calls []*callState, wire int, id string) *callState {
	if id != "" {
		for i := len(calls) - 1; i >= 0; i-- {
			if calls[i].call.ID == id {
				return calls[i]
			}
		}
	}
	for i := len(calls) - 1; i >= 0; i-- {
		if wire < 0 || calls[i].wire == wire {
			return calls[i]
		}
	}
	return nil
}

// chunkWire is the part of a Chat Completions stream chunk ("chat.completion.chunk") that we
// read, plus the fields compatible servers add: reasoning_content (DeepSeek, vLLM), reasoning
// (OpenRouter, Ollama, newer vLLM) and error (OpenRouter, vLLM). JSON nulls decode as "". Text
// chunks are read by decodeChunk (chunk_decode.go), anything else by encoding/json into this
// struct; both cost a fraction of the SDK's ChatCompletionChunk decoder, which records metadata
// for every field and was most of Parley's CPU time when relaying a fast stream (BenchmarkRelay).
type chunkWire struct {
	Choices []chunkChoice   `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

// chunkChoice is one element of a chunk's choices.
type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason string     `json:"finish_reason"`
}

// wireUsage is the usage object of a chunk or completion.
type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func (u wireUsage) usage() Usage {
	return Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
}

// chunkDelta is one choice's delta in a chunkWire. Content is a string (or null) on most servers;
// Mistral's reasoning models (Magistral) send an array of content parts instead, which
// UnmarshalJSON reads: their text parts become Content and their thinking parts partReasoning.
type chunkDelta struct {
	Content          wireText        `json:"content"`
	Refusal          wireText        `json:"refusal"`
	ReasoningContent wireText        `json:"reasoning_content"`
	Reasoning        wireText        `json:"reasoning"`
	ToolCalls        []chunkToolCall `json:"tool_calls"`
	partReasoning    wireText        // the thinking parts of an array content
}

// UnmarshalJSON reads a delta (or a whole answer's message) whose content is a string, null, one
// content part or an array of them. A part is {"type":"text","text":…} or
// {"type":"thinking","thinking":… a string or an array of text parts}; parts of other types
// (references, images) carry no text and are skipped. Any other content is a *json.UnmarshalTypeError.
func (d *chunkDelta) UnmarshalJSON(b []byte) error {
	type fields chunkDelta // the same fields without this method
	var doc struct {
		fields
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	*d = chunkDelta(doc.fields)
	content := bytes.TrimSpace(doc.Content)
	if len(content) == 0 {
		return nil
	}
	switch content[0] {
	case '"', 'n':
		return json.Unmarshal(content, &d.Content)
	case '{':
		content = append(append([]byte("["), content...), ']')
	case '[':
	default:
		value := "number"
		if content[0] == 't' || content[0] == 'f' {
			value = "boolean"
		}
		return &json.UnmarshalTypeError{Value: value, Type: reflect.TypeFor[wireText](), Field: "content"}
	}
	var parts []contentPart
	if err := json.Unmarshal(content, &parts); err != nil {
		return err
	}
	var text, reasoning []byte
	for _, part := range parts {
		switch part.Type {
		case "text":
			text = append(text, part.Text...)
		case "thinking":
			reasoning = append(reasoning, part.thinking()...)
		}
	}
	d.Content, d.partReasoning = wireText(text), wireText(reasoning)
	return nil
}

// contentPart is one element of an array content (see chunkDelta.UnmarshalJSON). Thinking is
// Mistral's: an array of text parts, or a string.
type contentPart struct {
	Type     string          `json:"type"`
	Text     wireText        `json:"text"`
	Thinking json.RawMessage `json:"thinking"`
}

// thinking is a thinking part's text; "" when it holds none.
func (p contentPart) thinking() wireText {
	var s wireText
	if json.Unmarshal(p.Thinking, &s) == nil {
		return s
	}
	var parts []contentPart
	_ = json.Unmarshal(p.Thinking, &parts)
	var out []byte
	for _, part := range parts {
		if part.Type == "text" {
			out = append(out, part.Text...)
		}
	}
	return wireText(out)
}

// chunkToolCall is one tool_calls fragment. Index is nil when the server sent none (Gemini).
// ExtraContent is Gemini's {"google":{"thought_signature":…}}, which must go back with the call.
type chunkToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string        `json:"name"`
		Arguments wireArguments `json:"arguments"`
	} `json:"function"`
	ExtraContent json.RawMessage `json:"extra_content"`
}

// wireArguments is a tool call's arguments fragment: a JSON string as the API defines it (read as
// wireText), or, from servers that send the arguments as the object itself (as Ollama's native
// API does), that object's JSON text.
type wireArguments string

// UnmarshalJSON implements json.Unmarshaler.
func (a *wireArguments) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && (b[0] == '{' || b[0] == '[') {
		var compact bytes.Buffer
		if err := json.Compact(&compact, b); err != nil {
			return err
		}
		*a = wireArguments(compact.String())
		return nil
	}
	var t wireText
	err := t.UnmarshalJSON(b)
	*a = wireArguments(t)
	return err
}

// reasoning is the delta's reasoning fragment. Servers that send both fields repeat the same text
// in them, so only the first present one counts.
func (d chunkDelta) reasoning() wireText {
	switch {
	case d.ReasoningContent != "":
		return d.ReasoningContent
	case d.Reasoning != "":
		return d.Reasoning
	}
	return d.partReasoning
}

// params translates a Request into the SDK's request body. Usage is requested with
// stream_options.include_usage, which every server named on OpenAI accepts.
func (p *OpenAI) params(req Request) openai.ChatCompletionNewParams {
	model := req.Model
	if model == "" {
		model = p.model
	}
	params := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(model),
		Messages:      openAIMessages(req, !p.official),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if req.MaxTokens > 0 {
		// OpenAI's reasoning models refuse max_tokens; many compatible servers know only it.
		if p.official {
			params.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		} else {
			params.MaxTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	for _, t := range req.Tools {
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(schemaOf(t))}
		if t.Description != "" {
			def.Description = openai.String(t.Description)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(def))
	}
	return params
}

// openAIMessages lays out the conversation: System first, then Messages in order. Messages with a
// role other than system, user, assistant or tool are skipped. With reasoning, an assistant
// message that made tool calls carries its Reasoning as reasoning_content, the field DeepSeek,
// Kimi and llama.cpp read back (OpenAI's own API streams no reasoning text, and is not sent it).
func openAIMessages(req Request, reasoning bool) []openai.ChatCompletionMessageParamUnion {
	var out []openai.ChatCompletionMessageParamUnion
	if req.System != "" {
		out = append(out, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleSystem:
			out = append(out, openai.SystemMessage(m.Content))
		case RoleUser:
			out = append(out, openai.UserMessage(m.Content))
		case RoleTool:
			out = append(out, openai.ToolMessage(m.Content, m.ToolCallID))
		case RoleAssistant:
			var am openai.ChatCompletionAssistantMessageParam
			if m.Content != "" || len(m.ToolCalls) == 0 {
				am.Content.OfString = openai.String(m.Content)
			}
			if reasoning && m.Reasoning != "" && len(m.ToolCalls) > 0 {
				am.SetExtraFields(map[string]any{"reasoning_content": m.Reasoning})
			}
			for _, tc := range m.ToolCalls {
				call := &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: argumentsOrEmpty(tc.Arguments)},
				}
				if len(tc.Extra) > 0 {
					call.SetExtraFields(map[string]any{"extra_content": tc.Extra})
				}
				am.ToolCalls = append(am.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: call})
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &am})
		}
	}
	return out
}

// schemaOf gives a tool's parameter schema, an empty object schema when it has none.
func schemaOf(t Tool) map[string]any {
	if t.Parameters != nil {
		return t.Parameters
	}
	return map[string]any{"type": "object", "properties": map[string]any{}}
}

func argumentsOrEmpty(args string) string {
	if args == "" {
		return "{}"
	}
	return args
}
