package agents_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/agents"
)

func TestAnthropicSendsTheConversationAndTools(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-from-the-environment")
	body, err := os.ReadFile(filepath.Join(fixtureDir, "13-anthropic-messages.sse"))
	if err != nil {
		t.Fatal(err)
	}
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { replay(w, body, writeModes[0]) })
	req := agents.Request{
		System: "Be brief.",
		Messages: []agents.Message{
			{Role: "user", Content: "Weather in Lisbon and Porto?"},
			{Role: "assistant", Content: "Checking.", ToolCalls: []agents.ToolCall{
				{ID: "toolu_1", Name: "get_weather", Arguments: `{"city":"Lisbon"}`},
				{ID: "toolu_2", Name: "get_weather", Arguments: `{"city":"Porto"}`},
			}},
			{Role: "tool", ToolCallID: "toolu_1", Content: `{"temp":21}`},
			{Role: "tool", ToolCallID: "toolu_2", Content: `{"temp":18}`},
		},
		Tools: []agents.Tool{agents.SearchWorkspaceTool},
	}
	res, err := anthropicProvider(t, up.URL).Stream(t.Context(), req, nil)
	if err != nil || !res.Complete {
		t.Fatalf("Result %+v, err %v", res, err)
	}
	got := up.lastRequest(t)
	if got.method != "POST" || got.path != "/v1/messages" {
		t.Errorf("request %s %s", got.method, got.path)
	}
	// anthropic-sdk-go v2 (API version 2026-10-21) sends the key as a bearer token.
	if auth := got.header.Get("Authorization"); auth != "Bearer "+testKey {
		t.Errorf("Authorization = %q, want the configured key, never the environment's", auth)
	}
	var sent struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Stream    bool   `json:"stream"`
		System    []struct {
			Text string `json:"text"`
		} `json:"system"`
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string          `json:"type"`
				Text      string          `json:"text"`
				ID        string          `json:"id"`
				Name      string          `json:"name"`
				Input     json.RawMessage `json:"input"`
				ToolUseID string          `json:"tool_use_id"`
			} `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(got.body, &sent); err != nil {
		t.Fatalf("%v: %s", err, got.body)
	}
	if sent.Model != "claude-test" || sent.MaxTokens != agents.DefaultMaxTokens || !sent.Stream {
		t.Errorf("model %q max_tokens %d stream %v", sent.Model, sent.MaxTokens, sent.Stream)
	}
	if len(sent.System) != 1 || sent.System[0].Text != "Be brief." {
		t.Errorf("system %+v", sent.System)
	}
	var shape []string
	for _, m := range sent.Messages {
		var types []string
		for _, c := range m.Content {
			types = append(types, c.Type)
		}
		shape = append(shape, m.Role+":"+strings.Join(types, "+"))
	}
	// Both tool results travel in one user turn, as the API requires alternating roles.
	if want := "user:text assistant:text+tool_use+tool_use user:tool_result+tool_result"; strings.Join(shape, " ") != want {
		t.Errorf("messages %v, want %s", shape, want)
	}
	if len(sent.Messages) == 3 {
		if use := sent.Messages[1].Content[1]; use.ID != "toolu_1" || use.Name != "get_weather" || string(use.Input) != `{"city":"Lisbon"}` {
			t.Errorf("tool_use %+v", use)
		}
		if r := sent.Messages[2].Content[1]; r.ToolUseID != "toolu_2" {
			t.Errorf("tool_result answers %q", r.ToolUseID)
		}
	}
	if len(sent.Tools) != 1 || sent.Tools[0].Name != "search_workspace" || sent.Tools[0].InputSchema["type"] != "object" {
		t.Errorf("tools %+v", sent.Tools)
	}
	if req := sent.Tools[0].InputSchema["required"]; req == nil {
		t.Errorf("input_schema lost its required list: %v", sent.Tools[0].InputSchema)
	}
}

func TestAnthropicHTTPErrorIsReadableAndHidesTheKey(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + testKey + `"}}`))
	})
	res, err := anthropicProvider(t, up.URL).Stream(t.Context(), agents.Request{Messages: []agents.Message{{Role: "user", Content: "hi"}}}, nil)
	var ue *agents.UpstreamError
	if !asUpstream(err, &ue) || ue.Kind != agents.KindHTTPError || ue.Status != 401 || ue.Code != "authentication_error" {
		t.Fatalf("err = %#v", err)
	}
	if !strings.Contains(ue.Message, "invalid x-api-key") || strings.Contains(ue.Message, testKey) {
		t.Errorf("message %q", ue.Message)
	}
	if res.Complete {
		t.Error("a failed request is complete")
	}
}
