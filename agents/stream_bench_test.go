package agents_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"parley/agents"
)

// BenchmarkOpenAIStreamOf2000Deltas is the provider's own cost of a fast answer: 2,000 text chunks
// as an OpenAI-compatible server renders them, written at once by a local server, read, decoded and
// assembled into events (ns per answer; divide by 2,000 for a chunk).
func BenchmarkOpenAIStreamOf2000Deltas(b *testing.B) {
	var body strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&body, `data: {"id":"chatcmpl-relay","object":"chat.completion.chunk","created":1,"model":"fake-model","choices":[{"index":0,"delta":{"content":"w%d "},"finish_reason":null}]}`+"\n\n", i)
	}
	body.WriteString(`data: {"id":"chatcmpl-relay","object":"chat.completion.chunk","created":1,"model":"fake-model","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n")
	stream := body.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(stream))
	}))
	defer srv.Close()
	p, err := agents.New(agents.Config{Kind: "openai", BaseURL: srv.URL, Model: "fake-model"})
	if err != nil {
		b.Fatal(err)
	}
	req := agents.Request{Messages: []agents.Message{{Role: agents.RoleUser, Content: "go"}}}
	for b.Loop() {
		n := 0
		res, err := p.Stream(context.Background(), req, func(ev agents.Event) error {
			if ev.Kind == agents.EventTextDelta {
				n++
			}
			return nil
		})
		if err != nil || n != 2000 || !res.Complete {
			b.Fatalf("%d deltas, %v", n, err)
		}
	}
}
