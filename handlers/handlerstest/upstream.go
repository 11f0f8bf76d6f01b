package handlerstest

import (
	"encoding/json"
	"fmt"
	"io"
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
	bodies                        []string
}

// Requests returns the request bodies received so far (JSON), in order.
func (u *Upstream) Requests() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.bodies...)
}

// LastRequest is the JSON body of the last call (model, messages, …) decoded, nil before the first.
func (u *Upstream) LastRequest() map[string]any {
	reqs := u.Requests()
	if len(reqs) == 0 {
		return nil
	}
	var body map[string]any
	_ = json.Unmarshal([]byte(reqs[len(reqs)-1]), &body)
	return body
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
	// Hang sends nothing more after Deltas until the client goes away: an upstream that stalls
	// halfway. With no Deltas it hangs right after the headers, before any byte of the body.
	Hang   bool
	Finish string // the finish_reason; "" is "stop" ("tool_calls" when ToolCalls are set)
	// ToolCalls are streamed after Deltas as tool_calls deltas, one chunk each; the first chunk of
	// a call carries its ID and Name.
	ToolCalls []ToolCallDelta
}

// ToolCallDelta is one tool_calls fragment: the call's Index (left out of the wire when NoIndex,
// as Gemini sends calls), and ID and Name when it starts.
type ToolCallDelta struct {
	Index    int
	NoIndex  bool
	ID, Name string
	Args     string
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
		body, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.bodies = append(u.bodies, string(body))
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
		if reply.Hang && len(reply.Deltas) == 0 {
			w.WriteHeader(http.StatusOK)
			flusher.Flush()
			<-r.Context().Done()
			return
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
		if reply.Hang {
			<-r.Context().Done()
			return
		}
		for _, tc := range reply.ToolCalls {
			call := map[string]any{"function": map[string]any{"arguments": tc.Args}}
			if !tc.NoIndex {
				call["index"] = tc.Index
			}
			if tc.ID != "" || tc.Name != "" {
				call["id"], call["type"] = tc.ID, "function"
				call["function"].(map[string]any)["name"] = tc.Name
			}
			chunk(map[string]any{"tool_calls": []any{call}}, nil)
		}
		if reply.Cut {
			return
		}
		finish := reply.Finish
		if finish == "" && len(reply.ToolCalls) > 0 {
			finish = "tool_calls"
		} else if finish == "" {
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
