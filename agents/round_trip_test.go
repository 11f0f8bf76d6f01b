package agents_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"parley/agents"
)

// Gemini's thought signature, which arrives on a tool call, goes back on that call in the
// follow-up request (extra_content.google.thought_signature), as Gemini requires.
func TestOpenAISendsGeminiThoughtSignaturesBackWithTheirCalls(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(fixtureDir, "19-gemini-tool-calls-without-index.sse"))
	if err != nil {
		t.Fatal(err)
	}
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { replay(w, body, writeModes[0]) })
	p := openAIProvider(t, up.URL)
	ask := []agents.Message{{Role: agents.RoleUser, Content: "alpha and beta?"}}
	res, err := p.Stream(t.Context(), agents.Request{Messages: ask}, nil)
	if err != nil || len(res.ToolCalls) != 2 {
		t.Fatalf("first round: %+v, %v", res, err)
	}
	up.lastRequest(t)
	follow := append(ask, agents.Message{Role: agents.RoleAssistant, ToolCalls: res.ToolCalls},
		agents.Message{Role: agents.RoleTool, ToolCallID: res.ToolCalls[0].ID, Content: `{"results":[]}`},
		agents.Message{Role: agents.RoleTool, ToolCallID: res.ToolCalls[1].ID, Content: `{"results":[]}`})
	if _, err := p.Stream(t.Context(), agents.Request{Messages: follow}, nil); err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Messages []struct {
			ToolCalls []struct {
				Function     struct{ Name, Arguments string }
				ExtraContent *struct {
					Google struct {
						ThoughtSignature string `json:"thought_signature"`
					} `json:"google"`
				} `json:"extra_content"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(up.lastRequest(t).body, &sent); err != nil {
		t.Fatal(err)
	}
	calls := sent.Messages[1].ToolCalls
	if len(calls) != 2 || calls[0].Function.Arguments != `{"query":"alpha"}` || calls[1].Function.Arguments != `{"query":"beta"}` {
		t.Fatalf("follow-up tool calls %+v", calls)
	}
	const signature = "CtwCAdHtim9vJ3Xq8kR0pLs2Yb6nT4hU1eW5zC7mA9dF3gH6jK0lN2oP4qS6uV8xY0aB2cE4fG6hI8" // as recorded
	if calls[0].ExtraContent == nil || calls[0].ExtraContent.Google.ThoughtSignature != signature {
		t.Fatalf("the first call went back without its signature: %+v", calls[0])
	}
	if calls[1].ExtraContent != nil {
		t.Errorf("the second call had no extra content but was sent %+v", calls[1].ExtraContent)
	}
}

// Extended thinking is asked for only when the request thinks, with the configured budget, and
// max_tokens leaves room for an answer beyond it.
func TestAnthropicAsksForThinkingOnlyWhenTheRequestThinks(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(fixtureDir, "30-anthropic-message-stop-only.sse"))
	if err != nil {
		t.Fatal(err)
	}
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { replay(w, body, writeModes[0]) })
	p, err := agents.New(agents.Config{Kind: "anthropic", BaseURL: up.URL, APIKey: testKey, Model: "claude-test", ThinkingBudget: 5000})
	if err != nil {
		t.Fatal(err)
	}
	for _, think := range []bool{false, true} {
		if _, err := p.Stream(t.Context(), agents.Request{Messages: []agents.Message{{Role: "user", Content: "hi"}}, Think: think}, nil); err != nil {
			t.Fatal(err)
		}
		var sent struct {
			MaxTokens int `json:"max_tokens"`
			Thinking  *struct {
				Type         string `json:"type"`
				BudgetTokens int    `json:"budget_tokens"`
			} `json:"thinking"`
		}
		if err := json.Unmarshal(up.lastRequest(t).body, &sent); err != nil {
			t.Fatal(err)
		}
		switch {
		case !think && sent.Thinking != nil:
			t.Errorf("a request that does not think sent thinking %+v", *sent.Thinking)
		case think && (sent.Thinking == nil || sent.Thinking.Type != "enabled" || sent.Thinking.BudgetTokens != 5000 || sent.MaxTokens <= 5000):
			t.Errorf("thinking %+v with max_tokens %d, want enabled, 5000, and max_tokens above it", sent.Thinking, sent.MaxTokens)
		}
	}
	if _, err := agents.New(agents.Config{Kind: "anthropic", APIKey: testKey, Model: "claude-test", ThinkingBudget: 100}); err == nil {
		t.Error("a budget under Anthropic's minimum of 1024 was accepted")
	}
}
