package handlerstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/config"
)

// Upstream is a fake OpenAI-compatible server on this machine: it answers POST /chat/completions
// with an SSE stream in the wire format of OpenAI's Chat Completions. Answer decides each call's
// reply from the call's number (1, 2, …).
type Upstream struct {
	URL    string
	Calls  atomic.Int64
	OnDone func(started, firstDelta, finished time.Time)

	mu                            sync.Mutex
	started, firstDelta, finished time.Time
	lastRequest                   map[string]any
}

// LastRequest is the JSON body of the last call (model, messages, …), nil before the first.
func (u *Upstream) LastRequest() map[string]any {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.lastRequest
}

// Timing returns when the last call's response started, wrote its first delta and finished.
func (u *Upstream) Timing() (started, firstDelta, finished time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.started, u.firstDelta, u.finished
}

func (u *Upstream) mark(t *time.Time) {
	u.mu.Lock()
	*t = time.Now()
	u.mu.Unlock()
}

// Reply is what the fake upstream sends for one call: Status (0 is 200) with an error body, or
// Deltas streamed with Gap between them and a final finish reason (unless Cut, which ends the
// connection without one).
type Reply struct {
	Status int
	Deltas []string
	Gap    time.Duration
	Cut    bool
	Finish string // the finish_reason; "" is "stop" ("tool_calls" when ToolCall is set)
	// ToolCall, when set, is a function call sent after the deltas: its name and JSON arguments.
	ToolCall *ToolCall
}

// ToolCall is a function call the fake upstream makes.
type ToolCall struct {
	Name, Arguments string
}

// FakeOpenAI starts an Upstream answering with answer(call number), closed when the test ends.
func FakeOpenAI(t testing.TB, answer func(call int64) Reply) *Upstream {
	u := &Upstream{}
	srv := httptest.NewServer(u.Handler(answer))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	u.URL = srv.URL
	return u
}

// Handler is the upstream's HTTP handler, for serving it elsewhere (e.g. in another process);
// OnDone, when set, is called after each complete reply with its timing.
func (u *Upstream) Handler(answer func(call int64) Reply) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		u.mu.Lock()
		u.lastRequest = body
		u.mu.Unlock()
		n := u.Calls.Add(1)
		reply := answer(n)
		if reply.Status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(reply.Status)
			fmt.Fprintf(w, `{"error":{"message":"fake upstream failure %d","type":"server_error"}}`, reply.Status)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		flusher := w.(http.Flusher)
		chunk := func(delta map[string]any, finish any) {
			b, _ := json.Marshal(map[string]any{
				"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": "fake-model",
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
			})
			fmt.Fprintf(w, "data: %s\n\n", b)
			flusher.Flush()
		}
		u.mark(&u.started)
		chunk(map[string]any{"role": "assistant", "content": ""}, nil)
		for i, d := range reply.Deltas {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(reply.Gap):
			}
			chunk(map[string]any{"content": d}, nil)
			if i == 0 {
				u.mark(&u.firstDelta)
			}
		}
		if reply.Cut {
			return
		}
		finish := reply.Finish
		if tc := reply.ToolCall; tc != nil {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call_fake", "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}}}}, nil)
			if finish == "" {
				finish = "tool_calls"
			}
		}
		if finish == "" {
			finish = "stop"
		}
		chunk(map[string]any{}, finish)
		fmt.Fprint(w, "data: [DONE]\n\n")
		flusher.Flush()
		u.mark(&u.finished)
		if u.OnDone != nil {
			u.OnDone(u.Timing())
		}
	})
}

// WithUpstream configures the app to use the fake upstream as its OpenAI-compatible model.
func WithUpstream(u *Upstream) func(*config.Config) {
	return func(c *config.Config) {
		c.Provider, c.OpenAIBaseURL, c.OpenAIModel = "openai", u.URL, "fake-model"
	}
}
