package handlers_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"parley/config"
)

// fakeClaude is a local server speaking Anthropic's Messages stream: the first call thinks (a
// signed block and a redacted one) and asks for search_workspace, the next answers in text. It
// keeps every request body.
type fakeClaude struct {
	URL    string
	mu     sync.Mutex
	bodies [][]byte
}

func startFakeClaude(t *testing.T) *fakeClaude {
	f := &fakeClaude{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		n := len(f.bodies)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		event := func(typ, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, data) }
		event("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"usage":{"input_tokens":40,"output_tokens":1}}}`)
		if n == 1 {
			event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)
			event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Search the notes first."}}`)
			event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig-ErUBCkYIBxgC"}}`)
			event("content_block_stop", `{"type":"content_block_stop","index":0}`)
			event("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"opaque-EmwKAhgB"}}`)
			event("content_block_stop", `{"type":"content_block_stop","index":1}`)
			event("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"search_workspace","input":{}}}`)
			event("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"tides\"}"}}`)
			event("content_block_stop", `{"type":"content_block_stop","index":2}`)
			event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":30}}`)
		} else {
			event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"No tide notes yet."}}`)
			event("content_block_stop", `{"type":"content_block_stop","index":0}`)
			event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":6}}`)
		}
		event("message_stop", `{"type":"message_stop"}`)
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

func (f *fakeClaude) request(t *testing.T, i int) map[string]any {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.bodies) {
		t.Fatalf("Claude got %d requests, want at least %d", len(f.bodies), i+1)
	}
	var body map[string]any
	if err := json.Unmarshal(f.bodies[i], &body); err != nil {
		t.Fatal(err)
	}
	return body
}

// An agent with the reasoning capability asks Claude for extended thinking with the configured
// budget; the thinking streams into the reasoning item; and the tool round sends the signed and
// the redacted blocks back, unchanged and first, in the assistant turn that used the tool.
func TestClaudeThinksWhenReasoningIsOnAndGetsItsSignedBlocksBackInTheToolRound(t *testing.T) {
	claude := startFakeClaude(t)
	_, c := signedIn(t, func(cfg *config.Config) {
		cfg.Provider, cfg.AnthropicBaseURL, cfg.AnthropicAPIKey, cfg.AnthropicModel = "anthropic", claude.URL, "sk-ant-test-key", "claude-test"
		cfg.AnthropicThinkingBudget = 3000
	})
	api := cookieAPI(t, c)
	var res chatResponse
	api.json("POST", "/api/chat", `{"query": "where are my tide notes?"}`, 200, &res)
	if res.Response != "No tide notes yet." || res.AgentResponse == nil || res.AgentResponse.Reasoning == nil || *res.AgentResponse.Reasoning != "Search the notes first." {
		t.Fatalf("answer %+v", res)
	}

	first := claude.request(t, 0)
	thinking, _ := first["thinking"].(map[string]any)
	if thinking["type"] != "enabled" || thinking["budget_tokens"] != float64(3000) {
		t.Errorf("first request's thinking = %v, want enabled with budget 3000", first["thinking"])
	}
	if mt, _ := first["max_tokens"].(float64); mt <= 3000 {
		t.Errorf("max_tokens %v must exceed the thinking budget", first["max_tokens"])
	}

	second := claude.request(t, 1)
	messages, _ := second["messages"].([]any)
	if len(messages) != 3 {
		t.Fatalf("tool round sends %d messages, want user, assistant, user: %v", len(messages), messages)
	}
	assistant := messages[1].(map[string]any)
	blocks, _ := assistant["content"].([]any)
	var types []string
	for _, b := range blocks {
		types = append(types, b.(map[string]any)["type"].(string))
	}
	if assistant["role"] != "assistant" || strings.Join(types, ",") != "thinking,redacted_thinking,tool_use" {
		t.Fatalf("assistant turn %v, want thinking,redacted_thinking,tool_use", types)
	}
	signed := blocks[0].(map[string]any)
	if signed["thinking"] != "Search the notes first." || signed["signature"] != "sig-ErUBCkYIBxgC" {
		t.Errorf("signed block sent back as %v", signed)
	}
	if redacted := blocks[1].(map[string]any); redacted["data"] != "opaque-EmwKAhgB" {
		t.Errorf("redacted block sent back as %v", redacted)
	}
	if _, ok := second["thinking"].(map[string]any); !ok {
		t.Error("the tool round no longer asks for thinking")
	}
	result := messages[2].(map[string]any)["content"].([]any)[0].(map[string]any)
	if result["type"] != "tool_result" || result["tool_use_id"] != "toolu_1" {
		t.Errorf("tool result %v", result)
	}
}
