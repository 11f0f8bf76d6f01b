package agents_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"parley/agents"
)

// fixtureDir holds recorded upstream bodies and what a client must assemble from them (see its
// README.md for where each comes from).
const fixtureDir = "testdata/streams"

// expectedStream is a fixture's NN-name.expected.json: what a client must assemble from the body
// NN-name.sse (or .html, .json, .txt for bodies that are not event streams, served with
// ContentType).
type expectedStream struct {
	WireFormat  string  `json:"wire_format"`
	ContentType string  `json:"content_type"` // "" is text/event-stream
	Content     string  `json:"content"`
	Reasoning   *string `json:"reasoning"`
	ToolCalls   []struct {
		Index           int             `json:"index"`
		ID              string          `json:"id"`
		Name            string          `json:"name"`
		Arguments       string          `json:"arguments"`
		ArgumentsParsed json.RawMessage `json:"arguments_parsed"` // null: CheckArguments must refuse them
		ExtraContent    json.RawMessage `json:"extra_content"`
	} `json:"tool_calls"`
	ThinkingBlocks []agents.ThinkingBlock `json:"thinking_blocks"`
	Truncated      bool                   `json:"truncated"`
	FinishReason   *string                `json:"finish_reason"`
	Usage          *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
	Error *struct {
		Kind            string `json:"kind"`
		MessageContains string `json:"message_contains"`
	} `json:"error"`
	Complete bool `json:"complete"`
}

func TestStreamsAssembleEveryFixture(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(fixtureDir, "*.expected.json"))
	if err != nil || len(files) < 34 {
		t.Fatalf("%d fixtures in %s, want at least 34: %v", len(files), fixtureDir, err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".expected.json")
		var want expectedStream
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var fixture struct {
			File string `json:"fixture"`
		}
		_ = json.Unmarshal(raw, &fixture)
		body, err := os.ReadFile(filepath.Join(fixtureDir, fixture.File))
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range writeModes {
			t.Run(name+"/"+mode.name, func(t *testing.T) {
				up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
					if want.ContentType != "" {
						w.Header().Set("Content-Type", want.ContentType)
					}
					replay(w, body, mode)
				})
				var p agents.Provider
				switch want.WireFormat {
				case "openai-chat-completions-sse":
					p = openAIProvider(t, up.URL)
				case "anthropic-messages-sse":
					p = anthropicProvider(t, up.URL)
				default:
					t.Fatalf("unknown wire format %q", want.WireFormat)
				}
				rec := &recorder{}
				res, err := p.Stream(t.Context(), agents.Request{Messages: []agents.Message{{Role: "user", Content: "hi"}}}, rec.emit)
				checkFixture(t, want, res, err)
				checkEvents(t, rec, res)
			})
		}
	}
}

func checkFixture(t *testing.T, want expectedStream, res agents.Result, err error) {
	t.Helper()
	if res.Content != want.Content {
		t.Errorf("Content = %q, want %q", res.Content, want.Content)
	}
	if w := deref(want.Reasoning); res.Reasoning != w {
		t.Errorf("Reasoning = %q, want %q", res.Reasoning, w)
	}
	if w := deref(want.FinishReason); res.FinishReason != w {
		t.Errorf("FinishReason = %q, want %q", res.FinishReason, w)
	}
	if len(res.ToolCalls) != len(want.ToolCalls) {
		t.Errorf("%d tool calls, want %d: %+v", len(res.ToolCalls), len(want.ToolCalls), res.ToolCalls)
	}
	for i := range min(len(res.ToolCalls), len(want.ToolCalls)) {
		got, w := res.ToolCalls[i], want.ToolCalls[i]
		if got.Index != w.Index || got.ID != w.ID || got.Name != w.Name || got.Arguments != w.Arguments {
			t.Errorf("tool call %d = %+v, want index %d id %q name %q arguments %q", i, got, w.Index, w.ID, w.Name, w.Arguments)
		}
		if string(w.ArgumentsParsed) == "null" {
			if err := got.CheckArguments(); err == nil || !strings.Contains(err.Error(), got.Name) {
				t.Errorf("tool call %d: CheckArguments = %v, want an error naming %s", i, err, got.Name)
			}
			continue
		}
		if err := got.CheckArguments(); err != nil {
			t.Errorf("tool call %d: %v", i, err)
		}
		var gotArgs, wantArgs any
		_ = json.Unmarshal([]byte(got.Arguments), &gotArgs)
		_ = json.Unmarshal(w.ArgumentsParsed, &wantArgs)
		if !reflect.DeepEqual(gotArgs, wantArgs) {
			t.Errorf("tool call %d arguments parse to %v, want %v", i, gotArgs, wantArgs)
		}
		var gotExtra, wantExtra any
		_ = json.Unmarshal(got.Extra, &gotExtra)
		_ = json.Unmarshal(w.ExtraContent, &wantExtra)
		if !reflect.DeepEqual(gotExtra, wantExtra) {
			t.Errorf("tool call %d extra content %s, want %s", i, got.Extra, w.ExtraContent)
		}
	}
	if !reflect.DeepEqual(res.Thinking, want.ThinkingBlocks) {
		t.Errorf("Thinking = %+v, want %+v", res.Thinking, want.ThinkingBlocks)
	}
	if res.Truncated != want.Truncated {
		t.Errorf("Truncated = %v, want %v", res.Truncated, want.Truncated)
	}
	switch {
	case want.Usage == nil && res.Usage != nil:
		t.Errorf("Usage = %+v, want none", *res.Usage)
	case want.Usage != nil && res.Usage == nil:
		t.Errorf("Usage = nil, want %+v", *want.Usage)
	case want.Usage != nil:
		w := agents.Usage{PromptTokens: want.Usage.PromptTokens, CompletionTokens: want.Usage.CompletionTokens, TotalTokens: want.Usage.TotalTokens}
		if *res.Usage != w {
			t.Errorf("Usage = %+v, want %+v", *res.Usage, w)
		}
	}
	if res.Complete != want.Complete {
		t.Errorf("Complete = %v, want %v", res.Complete, want.Complete)
	}
	if err != res.Err {
		t.Errorf("Stream returned error %v, Result.Err %v: want the same", err, res.Err)
	}
	switch {
	case want.Error == nil && res.Err != nil:
		t.Errorf("Err = %v, want none", res.Err)
	case want.Error != nil && string(agents.KindOf(res.Err)) != want.Error.Kind:
		t.Errorf("Err = %v (kind %q), want kind %q", res.Err, agents.KindOf(res.Err), want.Error.Kind)
	case want.Error != nil && res.Err != nil && !strings.Contains(res.Err.Error(), want.Error.MessageContains):
		t.Errorf("Err = %q, want it to say %q", res.Err, want.Error.MessageContains)
	}
	if res.Err != nil && strings.Contains(res.Err.Error(), testKey) {
		t.Errorf("error shows the API key: %v", res.Err)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
