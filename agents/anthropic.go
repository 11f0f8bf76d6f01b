package agents

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// Anthropic streams from the Anthropic Messages API (POST {BaseURL}/v1/messages with
// "stream": true). Thinking blocks become reasoning, text blocks the answer, tool_use blocks tool
// calls whose arguments are the concatenated input_json_delta fragments. Usage is cumulative:
// message_start gives the input tokens, each message_delta the output tokens so far. The finish
// reason is Anthropic's stop_reason as sent ("end_turn", "tool_use", "max_tokens" …); "refusal"
// fails with kind content_filter. As for OpenAI, the SDK sends the request and our decoder reads
// the event stream.
type Anthropic struct {
	client anthropic.Client
	model  string
	key    string
	idle   silenceLimits
}

// DefaultAnthropicBaseURL is used when Config.BaseURL is empty; "/v1/messages" is appended.
const DefaultAnthropicBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens caps an Anthropic answer when Request.MaxTokens is 0 (the API requires a cap).
const DefaultMaxTokens = 4096

func newAnthropic(cfg Config, baseURL *url.URL) *Anthropic {
	opts := []option.RequestOption{
		// Only what Config says: no ANTHROPIC_* variables from the environment.
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(baseURL.String()),
		option.WithAPIKey(cfg.APIKey),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Anthropic{
		client: anthropic.NewClient(opts...),
		model:  cfg.Model,
		key:    cfg.APIKey,
		idle:   idleLimit(cfg),
	}
}

// Name returns "anthropic".
func (p *Anthropic) Name() string { return "anthropic" }

// Model returns the configured model id.
func (p *Anthropic) Model() string { return p.model }

// Stream implements Provider.
func (p *Anthropic) Stream(ctx context.Context, req Request, emit func(Event) error) (Result, error) {
	a := newAssembler(emit)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := newIdleWatch(p.idle, cancel) // armed before the request: a silent upstream times out too
	defer idle.Stop()

	var resp *http.Response
	stream := p.client.Messages.NewStreaming(ctx, p.params(req), option.WithResponseInto(&resp))
	defer stream.Close()
	if !a.opened(ctx, stream.Err(), resp, p.key) {
		return a.result()
	}

	events := newSSEDecoder(idle.reader(resp.Body))
	blocks := anthropicBlocks{}
	for {
		ev, err := events.Next()
		if errors.Is(err, io.EOF) {
			return a.result()
		}
		if err != nil {
			return a.stop(ctx, idle, err)
		}
		stop, err := p.event(a, blocks, ev)
		if err != nil || stop || a.err != nil {
			return a.result()
		}
	}
}

// anthropicBlocks maps a tool_use block's content index to its tool call index (0, 1, … in the
// order the tool_use blocks arrive).
type anthropicBlocks map[int64]int

// event feeds one stream event to a. stop reports message_stop; err is emit's error.
func (p *Anthropic) event(a *assembler, blocks anthropicBlocks, ev sseEvent) (stop bool, err error) {
	var e anthropic.MessageStreamEventUnion
	if err := json.Unmarshal(ev.Data, &e); err != nil {
		a.fail(&UpstreamError{Kind: KindUpstreamError, Message: "The model provider sent an event that is not valid JSON.", Err: err})
		return false, nil
	}
	if ev.Type == "error" || e.Type == "error" {
		a.fail(streamError(ev.Data, p.key))
		return false, nil
	}
	switch e.Type {
	case "message_start":
		u := e.Message.Usage
		return false, a.setUsage(Usage{
			PromptTokens:     int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens),
			CompletionTokens: int(u.OutputTokens),
		})
	case "content_block_start":
		b := e.ContentBlock
		switch b.Type {
		case "tool_use":
			call := len(blocks)
			blocks[e.Index] = call
			return false, a.toolStart(call, b.ID, b.Name)
		case "text":
			return false, a.text(b.Text)
		case "thinking":
			return false, a.think(b.Thinking)
		}
	case "content_block_delta":
		switch e.Delta.Type {
		case "text_delta":
			return false, a.text(e.Delta.Text)
		case "thinking_delta":
			return false, a.think(e.Delta.Thinking)
		case "input_json_delta":
			if call, ok := blocks[e.Index]; ok {
				return false, a.toolArgs(call, e.Delta.PartialJSON)
			}
		}
		// signature_delta and citations_delta carry nothing we show.
	case "content_block_stop":
		if call, ok := blocks[e.Index]; ok {
			return false, a.toolEnd(call)
		}
	case "message_delta":
		a.setFinish(string(e.Delta.StopReason))
		if e.JSON.Usage.Valid() {
			var u Usage
			if a.usage != nil {
				u = *a.usage
			}
			u.CompletionTokens = int(e.Usage.OutputTokens)
			if e.Usage.JSON.InputTokens.Valid() {
				u.PromptTokens = int(e.Usage.InputTokens + e.Usage.CacheCreationInputTokens + e.Usage.CacheReadInputTokens)
			}
			u.TotalTokens = 0
			return false, a.setUsage(u)
		}
	case "message_stop":
		return true, nil
	}
	// ping and event types added later are ignored, as Anthropic asks of clients.
	return false, nil
}

// params translates a Request into the SDK's request body.
func (p *Anthropic) params(req Request) anthropic.MessageNewParams {
	model := req.Model
	if model == "" {
		model = p.model
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	system, messages := anthropicMessages(req)
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: int64(maxTokens),
		Messages:  messages,
	}
	if system != "" {
		params.System = []anthropic.TextBlockParam{{Text: system}}
	}
	for _, t := range req.Tools {
		schema := schemaOf(t)
		input := anthropic.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
		for k, v := range schema {
			switch k {
			case "type", "properties":
			case "required":
				input.Required = stringList(v)
			default:
				input.ExtraFields[k] = v
			}
		}
		tool := anthropic.ToolParam{Name: t.Name, InputSchema: input}
		if t.Description != "" {
			tool.Description = anthropic.String(t.Description)
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &tool})
	}
	return params
}

// anthropicMessages splits the conversation into the system prompt (Request.System plus any system
// messages) and the turns. Tool results travel as tool_result blocks in a user turn, and
// consecutive turns of one role merge, as the API requires strictly alternating roles.
func anthropicMessages(req Request) (string, []anthropic.MessageParam) {
	system := []string{}
	if req.System != "" {
		system = append(system, req.System)
	}
	var out []anthropic.MessageParam
	add := func(assistant bool, blocks ...anthropic.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 && (out[n-1].OfAssistant != nil) == assistant {
			if assistant {
				out[n-1].OfAssistant.Content = append(out[n-1].OfAssistant.Content, blocks...)
			} else {
				out[n-1].OfUser.Content = append(out[n-1].OfUser.Content, blocks...)
			}
			return
		}
		if assistant {
			out = append(out, anthropic.NewAssistantMessage(blocks...))
		} else {
			out = append(out, anthropic.NewUserMessage(blocks...))
		}
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleSystem:
			if m.Content != "" {
				system = append(system, m.Content)
			}
		case RoleUser:
			if m.Content != "" {
				add(false, anthropic.NewTextBlock(m.Content))
			}
		case RoleTool:
			add(false, anthropic.NewToolResultBlock(m.ToolCallID, m.Content, false))
		case RoleAssistant:
			var blocks []anthropic.ContentBlockParamUnion
			if m.Content != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				input := json.RawMessage(argumentsOrEmpty(tc.Arguments))
				if !json.Valid(input) {
					input = json.RawMessage("{}")
				}
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, input, tc.Name))
			}
			add(true, blocks...)
		}
	}
	return strings.Join(system, "\n\n"), out
}

// stringList reads a JSON-schema "required" list, which may be []string or []any.
func stringList(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		var out []string
		for _, s := range l {
			if s, ok := s.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
