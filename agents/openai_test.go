package agents_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"parley/agents"
)

func chunk(text string) string {
	b, _ := json.Marshal(map[string]any{
		"id": "c1", "object": "chat.completion.chunk", "model": "m",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": text}, "finish_reason": nil}},
	})
	return "data: " + string(b) + "\n\n"
}

func TestOpenAIHTTPErrorsAreReadableAndHideTheKey(t *testing.T) {
	cases := []struct {
		name        string
		status      int
		contentType string
		body        string
		wantText    string
	}{
		{
			name: "401 with OpenAI's JSON", status: 401, contentType: "application/json",
			body:     `{"error":{"message":"Incorrect API key provided: ` + testKey + `. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			wantText: "Incorrect API key provided",
		},
		{
			name: "401 echoing a masked key", status: 401, contentType: "application/json",
			body:     `{"error":{"message":"Incorrect API key provided: sk-test-5e**********alue.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			wantText: "Incorrect API key provided",
		},
		{
			name: "500 with JSON", status: 500, contentType: "application/json",
			body:     `{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`,
			wantText: "The server had an error while processing your request.",
		},
		{
			name: "502 with plain text", status: 502, contentType: "text/plain",
			body:     "upstream connect error",
			wantText: "upstream connect error",
		},
		{
			name: "502 with a proxy's HTML page", status: 502, contentType: "text/html",
			body:     "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>",
			wantText: `HTTP 502: an HTML page titled "502 Bad Gateway"`,
		},
		{
			name: "404 with Ollama's string error", status: 404, contentType: "application/json",
			body:     `{"error":"model \"llama9\" not found, try pulling it first"}`,
			wantText: `model "llama9" not found`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var attempts atomic.Int32
			up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				attempts.Add(1)
				w.Header().Set("Content-Type", c.contentType)
				w.Header().Set("Retry-After-Ms", "1") // the SDK retries 5xx; keep the test fast
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			})
			rec := &recorder{}
			res, err := openAIProvider(t, up.URL).Stream(t.Context(), agents.Request{Messages: []agents.Message{{Role: "user", Content: "hi"}}}, rec.emit)
			var ue *agents.UpstreamError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v, want *UpstreamError", err)
			}
			if ue.Kind != agents.KindHTTPError || ue.Status != c.status {
				t.Errorf("kind %q status %d, want http_error %d", ue.Kind, ue.Status, c.status)
			}
			if !strings.Contains(ue.Message, c.wantText) {
				t.Errorf("message %q does not say %q", ue.Message, c.wantText)
			}
			if strings.Contains(ue.Message, testKey) || strings.Contains(ue.Message, "sk-test") {
				t.Errorf("message shows the key: %q", ue.Message)
			}
			if res.Complete || res.Content != "" {
				t.Errorf("Result = %+v, want failed and empty", res)
			}
			checkEvents(t, rec, res)
			if attempts.Load() < 1 {
				t.Error("no request reached the upstream")
			}
		})
	}
}

func TestOpenAIUnreachableServerIsAnUpstreamError(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {})
	url := up.URL
	up.Close()
	p, err := agents.New(agents.Config{Kind: "openai", BaseURL: url + "/v1", APIKey: testKey, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err = p.Stream(ctx, agents.Request{Messages: []agents.Message{{Role: "user", Content: "hi"}}}, nil)
	if agents.KindOf(err) != agents.KindUpstreamError {
		t.Fatalf("err = %v (kind %q), want upstream_error", err, agents.KindOf(err))
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("error shows the key: %v", err)
	}
}

func TestOpenAICancelMidStreamReturnsPromptlyWithPartialText(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(chunk("Tide") + chunk(" pools")))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the rest never comes
	})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	seen := 0
	emit := func(ev agents.Event) error {
		if ev.Kind == agents.EventTextDelta {
			if seen++; seen == 2 {
				cancel()
			}
		}
		return nil
	}
	start := time.Now()
	res, err := openAIProvider(t, up.URL).Stream(ctx, agents.Request{Messages: []agents.Message{{Role: "user", Content: "hi"}}}, emit)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Stream took %s after cancel", took)
	}
	if agents.KindOf(err) != agents.KindCanceled || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want canceled wrapping context.Canceled", err)
	}
	if res.Content != "Tide pools" || res.Complete {
		t.Errorf("Result = %q complete=%v, want partial %q", res.Content, res.Complete, "Tide pools")
	}
}

func TestOpenAIEmitErrorStopsTheStream(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(chunk("one") + chunk(" two") + chunk(" three")))
	})
	gone := errors.New("browser went away")
	emit := func(ev agents.Event) error {
		if ev.Kind == agents.EventTextDelta && ev.Text == " two" {
			return gone
		}
		return nil
	}
	res, err := openAIProvider(t, up.URL).Stream(t.Context(), agents.Request{}, emit)
	if !errors.Is(err, gone) || agents.KindOf(err) != agents.KindCanceled {
		t.Errorf("err = %v, want canceled wrapping the emit error", err)
	}
	if res.Content != "one two" {
		t.Errorf("Content = %q, want the text up to the refused fragment", res.Content)
	}
}

func TestOpenAISilentUpstreamTimesOut(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(chunk("Still")))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	p, err := agents.New(agents.Config{Kind: "openai", BaseURL: up.URL + "/v1", Model: "m", IdleTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Stream(t.Context(), agents.Request{}, nil)
	if agents.KindOf(err) != agents.KindTimeout {
		t.Errorf("err = %v (kind %q), want timeout", err, agents.KindOf(err))
	}
	if res.Content != "Still" {
		t.Errorf("Content = %q, want the partial text", res.Content)
	}
}

// A connection that dies inside a chunked body is a read error, not a clean end: the answer is
// incomplete and the half-sent event is dropped.
func TestOpenAIBrokenConnectionIsIncomplete(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(fixtureDir, "10-no-done-truncated.sse"))
	if err != nil {
		t.Fatal(err)
	}
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		_, _ = buf.WriteString(strconv.FormatInt(int64(len(body)+100), 16) + "\r\n") // promises more than it sends
		_, _ = buf.Write(body)
		_ = buf.Flush()
	})
	res, err := openAIProvider(t, up.URL).Stream(t.Context(), agents.Request{}, nil)
	if agents.KindOf(err) != agents.KindIncompleteStream {
		t.Errorf("err = %v (kind %q), want incomplete_stream", err, agents.KindOf(err))
	}
	if res.Content != "The capital of Australia is" {
		t.Errorf("Content = %q", res.Content)
	}
}

// A server (often a gateway) that answers 200 with an event stream's type but a bare JSON error
// as its body gets its reason shown, not "the stream ended before the answer was finished".
func TestOpenAIEventStreamHoldingABareJSONErrorSaysWhy(t *testing.T) {
	for name, body := range map[string]string{
		"one line":   `{"error":{"message":"model 'llama9' not found","type":"invalid_request_error"}}` + "\n",
		"pretty":     "{\n  \"error\": {\n    \"message\": \"model 'llama9' not found\"\n  }\n}\n",
		"not closed": `{"error":{"message":"model 'llama9' not found"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte(body))
			})
			_, err := openAIProvider(t, up.URL).Stream(t.Context(), agents.Request{}, nil)
			if agents.KindOf(err) != agents.KindUpstreamError || !strings.Contains(err.Error(), "model 'llama9' not found") {
				t.Errorf("err = %v (kind %q), want the server's reason", err, agents.KindOf(err))
			}
		})
	}
	// A stream cut inside its first event is still an incomplete stream, not an error text.
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(`data: {"choices":[{"index":0,"delta":{"content":"Hi"}`))
	})
	if _, err := openAIProvider(t, up.URL).Stream(t.Context(), agents.Request{}, nil); agents.KindOf(err) != agents.KindIncompleteStream {
		t.Errorf("a stream cut in its first event: err = %v (kind %q), want incomplete_stream", err, agents.KindOf(err))
	}
}

func TestOpenAIByteOrderMarkIsSkipped(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("\xEF\xBB\xBF" + chunk("Hi") + `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"))
	})
	res, err := openAIProvider(t, up.URL).Stream(t.Context(), agents.Request{}, nil)
	if err != nil || res.Content != "Hi" || !res.Complete {
		t.Errorf("Result = %+v, err %v", res, err)
	}
}

func TestOpenAIContentFilterFinishIsAnError(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(chunk("I can") + `data: {"choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}` + "\n\ndata: [DONE]\n\n"))
	})
	res, err := openAIProvider(t, up.URL).Stream(t.Context(), agents.Request{}, nil)
	if agents.KindOf(err) != agents.KindContentFilter || res.Complete || res.FinishReason != "content_filter" || res.Content != "I can" {
		t.Errorf("Result = %+v, err %v; want a content_filter failure keeping the text", res, err)
	}
}

func TestOpenAISendsTheConversationAndTools(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(fixtureDir, "01-plain-text.sse"))
	if err != nil {
		t.Fatal(err)
	}
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { replay(w, body, writeModes[0]) })
	req := agents.Request{
		System: "Be brief.",
		Messages: []agents.Message{
			{Role: "user", Content: "Where are my tide notes?"},
			{Role: "assistant", ToolCalls: []agents.ToolCall{{ID: "call_1", Name: "search_workspace", Arguments: `{"query":"tide"}`}}},
			{Role: "tool", ToolCallID: "call_1", Content: `{"results":[]}`},
		},
		Tools:     []agents.Tool{agents.SearchWorkspaceTool},
		MaxTokens: 300,
	}
	if _, err := openAIProvider(t, up.URL).Stream(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	got := up.lastRequest(t)
	if got.method != "POST" || got.path != "/v1/chat/completions" {
		t.Errorf("request %s %s", got.method, got.path)
	}
	if auth := got.header.Get("Authorization"); auth != "Bearer "+testKey {
		t.Errorf("Authorization = %q", auth)
	}
	var sent struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct{ Name, Arguments string }
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name       string         `json:"name"`
				Parameters map[string]any `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		MaxTokens int `json:"max_tokens"`
	}
	if err := json.Unmarshal(got.body, &sent); err != nil {
		t.Fatalf("%v: %s", err, got.body)
	}
	var roles []string
	for _, m := range sent.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool" {
		t.Errorf("roles %v", roles)
	}
	if sent.Model != "test-model" || !sent.Stream || !sent.StreamOptions.IncludeUsage || sent.MaxTokens != 300 {
		t.Errorf("model %q stream %v include_usage %v max_tokens %d", sent.Model, sent.Stream, sent.StreamOptions.IncludeUsage, sent.MaxTokens)
	}
	if tc := sent.Messages[2].ToolCalls; len(tc) != 1 || tc[0].ID != "call_1" || tc[0].Type != "function" || tc[0].Function.Name != "search_workspace" || tc[0].Function.Arguments != `{"query":"tide"}` {
		t.Errorf("assistant tool calls %+v", tc)
	}
	if sent.Messages[3].ToolCallID != "call_1" {
		t.Errorf("tool message answers %q", sent.Messages[3].ToolCallID)
	}
	if len(sent.Tools) != 1 || sent.Tools[0].Type != "function" || sent.Tools[0].Function.Name != "search_workspace" || sent.Tools[0].Function.Parameters["type"] != "object" {
		t.Errorf("tools %+v", sent.Tools)
	}
}

// The key set in Config is the only one sent: an OPENAI_API_KEY in the environment must not leak to
// a local server configured without a key.
func TestOpenAIWithoutKeySendsNoAuthorization(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	body, err := os.ReadFile(filepath.Join(fixtureDir, "11-no-done-after-finish.sse"))
	if err != nil {
		t.Fatal(err)
	}
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { replay(w, body, writeModes[0]) })
	p, err := agents.New(agents.Config{Kind: "openai", BaseURL: up.URL + "/v1", Model: "llama3.2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stream(t.Context(), agents.Request{}, nil); err != nil {
		t.Fatal(err)
	}
	if auth := up.lastRequest(t).header.Get("Authorization"); auth != "" {
		t.Errorf("Authorization = %q, want none", auth)
	}
}

// A server that cuts a character's bytes across two deltas still yields whole characters.
func TestOpenAIRawBytesSplitAcrossDeltasJoinIntoWholeCharacters(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, part := range []string{"caf\xc3", "\xa9 \xe6\x9d", "\xb1\xe4\xba\xac", "!"} {
			_, _ = w.Write([]byte(`data: {"choices":[{"index":0,"delta":{"content":"` + part + `"}}]}` + "\n\n"))
		}
		_, _ = w.Write([]byte(`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"))
	})
	rec := &recorder{}
	res, err := openAIProvider(t, up.URL).Stream(t.Context(), agents.Request{}, rec.emit)
	if err != nil || res.Content != "café 東京!" {
		t.Errorf("Content = %q, err %v", res.Content, err)
	}
	checkEvents(t, rec, res)
}

// A server that repeats the call's name on later fragments (with or without arguments) still
// makes one call, as long as the arguments are not yet whole or the fragment adds none.
func TestOpenAIRepeatedToolNameIsNotANewCall(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, tc := range []string{
			`{"index":0,"id":"call_1","type":"function","function":{"name":"search_workspace","arguments":""}}`,
			`{"index":0,"function":{"name":"search_workspace","arguments":"{\"query\":"}}`,
			`{"index":0,"function":{"name":"search_workspace","arguments":"\"tide\"}"}}`,
			`{"index":0,"function":{"name":"search_workspace","arguments":""}}`,
		} {
			_, _ = w.Write([]byte(`data: {"choices":[{"index":0,"delta":{"tool_calls":[` + tc + `]}}]}` + "\n\n"))
		}
		_, _ = w.Write([]byte(`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"))
	})
	rec := &recorder{}
	res, err := openAIProvider(t, up.URL).Stream(t.Context(), agents.Request{}, rec.emit)
	if err != nil || len(res.ToolCalls) != 1 || res.ToolCalls[0].Arguments != `{"query":"tide"}` || res.ToolCalls[0].ID != "call_1" {
		t.Fatalf("tool calls %+v, err %v; want one call", res.ToolCalls, err)
	}
	checkEvents(t, rec, res)
}
