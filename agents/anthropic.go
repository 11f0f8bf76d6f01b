package agents

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// Anthropic streams from the Anthropic Messages API (POST {BaseURL}/v1/messages with
// "stream": true). Thinking blocks become reasoning (and are kept, signed, in Result.Thinking;
// redacted_thinking blocks are kept opaque and never shown), text blocks the answer, tool_use blocks tool
// calls whose arguments are the concatenated input_json_delta fragments. Usage is cumulative:
// message_start gives the input tokens, each message_delta the output tokens so far. The finish
// reason is Anthropic's stop_reason as sent ("end_turn", "tool_use", "max_tokens" …); "refusal"
// fails with kind refusal. A Request that asks to Think turns on extended thinking with the
// configured budget. As for OpenAI, the SDK sends the request and our decoder reads
// the event stream.
type Anthropic struct {
	client         anthropic.Client
	model          string
	key            string
	idle           silenceLimits
	thinkingBudget int // tokens of extended thinking when a Request asks to Think
}

// DefaultAnthropicBaseURL is used when Config.BaseURL is empty; "/v1/messages" is appended.
const DefaultAnthropicBaseURL = "https://api.anthropic.com"

// DefaultThinkingBudget is the extended thinking budget, in tokens, when Config.ThinkingBudget is
// 0 (Anthropic's minimum is 1,024).
const DefaultThinkingBudget = 2048

// DefaultMaxTokens caps an Anthropic answer when Request.MaxTokens is 0 (the API requires a cap).
const DefaultMaxTokens = 4096

func newAnthropic(cfg Config, baseURL *url.URL) *Anthropic {
	opts := []option.RequestOption{
		// Only what Config says: no ANTHROPIC_* variables from the environment.
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(baseURL.String()),
		option.WithAPIKey(cfg.APIKey),
	}
	opts = append(opts, option.WithHTTPClient(httpClient(cfg)))
	return &Anthropic{
		client: anthropic.NewClient(opts...),
		model:  cfg.Model,
		key:    cfg.APIKey,
		idle:   idleLimit(cfg),
		// Config.ThinkingBudget, DefaultThinkingBudget when 0.
		thinkingBudget: cmp.Or(cfg.ThinkingBudget, DefaultThinkingBudget),
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
	stream := p.client.Messages.NewStreaming(ctx, p.params(req), option.WithResponseInto(&resp),
		option.WithMiddleware(retryWithin(time.Now().Add(p.idle.FirstByte))))
	defer stream.Close()
	if !a.opened(ctx, stream.Err(), resp, p.key, "Check PARLEY_ANTHROPIC_BASE_URL: Parley adds /v1/messages to it (e.g. "+DefaultAnthropicBaseURL+").") {
		return a.result()
	}
	blocks := anthropicBlocks{}
	return streamReader{
		key:   p.key,
		idle:  idle,
		event: func(ev sseEvent) (bool, error) { return p.event(a, blocks, ev) },
	}.read(ctx, a, resp)
}

// anthropicBlocks follows the open content blocks by their content index: a tool_use block's tool
// call, or a thinking block being assembled (its text and signature, or redacted data).
type anthropicBlocks map[int64]*anthropicBlock

type anthropicBlock struct {
	call     *callState
	thinking *ThinkingBlock
}

// event feeds one stream event to a. end reports message_stop; err is emit's error.
func (p *Anthropic) event(a *assembler, blocks anthropicBlocks, ev sseEvent) (end bool, err error) {
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
			c, err := a.openCall(-1, b.ID, b.Name)
			blocks[e.Index] = &anthropicBlock{call: c}
			return false, err
		case "text":
			return false, a.text(b.Text)
		case "thinking":
			blocks[e.Index] = &anthropicBlock{thinking: &ThinkingBlock{Type: "thinking", Thinking: b.Thinking, Signature: b.Signature}}
			return false, a.think(b.Thinking)
		case "redacted_thinking":
			// Encrypted reasoning: kept opaque, sent back, never shown.
			blocks[e.Index] = &anthropicBlock{thinking: &ThinkingBlock{Type: "redacted_thinking", Data: b.Data}}
		}
	case "content_block_delta":
		blk := blocks[e.Index]
		switch e.Delta.Type {
		case "text_delta":
			return false, a.text(e.Delta.Text)
		case "thinking_delta":
			if blk != nil && blk.thinking != nil {
				blk.thinking.Thinking += e.Delta.Thinking
			}
			return false, a.think(e.Delta.Thinking)
		case "signature_delta":
			if blk != nil && blk.thinking != nil {
				blk.thinking.Signature += e.Delta.Signature
			}
		case "input_json_delta":
			if blk != nil && blk.call != nil {
				return false, a.toolArgs(blk.call, e.Delta.PartialJSON)
			}
		}
		// citations_delta carries nothing we show.
	case "content_block_stop":
		blk := blocks[e.Index]
		delete(blocks, e.Index)
		switch {
		case blk == nil:
		case blk.call != nil:
			return false, a.toolEnd(blk.call)
		case blk.thinking != nil:
			a.thinking = append(a.thinking, *blk.thinking)
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
	think := req.Think // p.thinkingBudget is at least MinThinkingBudget (New checks it)
	if think && maxTokens <= p.thinkingBudget {
		maxTokens = p.thinkingBudget + DefaultMaxTokens // the budget counts within max_tokens
	}
	system, messages := anthropicMessages(req)
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: int64(maxTokens),
		Messages:  messages,
	}
	if think {
		params.Thinking = anthropic.ThinkingConfigParamOfEnabled(int64(p.thinkingBudget))
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
			// A tool-use turn's signed thinking goes back first, unchanged, as the API requires.
			for _, t := range m.Thinking {
				switch t.Type {
				case "thinking":
					blocks = append(blocks, anthropic.NewThinkingBlock(t.Signature, t.Thinking))
				case "redacted_thinking":
					blocks = append(blocks, anthropic.NewRedactedThinkingBlock(t.Data))
				}
			}
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
