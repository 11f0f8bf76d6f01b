package agents_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"parley/agents"
)

// anthropicStart is the beginning of an Anthropic Messages stream up to one text delta.
func anthropicStart(text string) string {
	return "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-test\",\"content\":[],\"usage\":{\"input_tokens\":3,\"output_tokens\":0}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + text + "\"}}\n\n"
}

// silentProviders builds each wire-level provider against an upstream served by handle, with the
// given first-byte and idle limits.
func silentProviders(t *testing.T, firstByte, idle time.Duration, handle func(kind string) http.HandlerFunc) map[string]agents.Provider {
	t.Helper()
	out := map[string]agents.Provider{}
	for _, kind := range []string{agents.ProviderOpenAI, agents.ProviderAnthropic} {
		up := newUpstream(t, handle(kind))
		cfg := agents.Config{Kind: kind, BaseURL: up.URL, APIKey: testKey, Model: "m", FirstByteTimeout: firstByte, IdleTimeout: idle}
		if kind == agents.ProviderOpenAI {
			cfg.BaseURL += "/v1"
		}
		p, err := agents.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		out[kind] = p
	}
	return out
}

// An upstream that accepts the request and never answers (no headers, or headers and no body)
// fails after the first-byte limit, with a message saying the model sent nothing.
func TestUpstreamSilentAfterAcceptingFailsAtTheFirstByteTimeout(t *testing.T) {
	for _, headers := range []bool{false, true} {
		providers := silentProviders(t, 300*time.Millisecond, 10*time.Second, func(string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				if headers {
					w.Header().Set("Content-Type", "text/event-stream")
					w.WriteHeader(http.StatusOK)
					w.(http.Flusher).Flush()
				}
				<-r.Context().Done()
			}
		})
		for kind, p := range providers {
			started := time.Now()
			res, err := p.Stream(t.Context(), agents.Request{Messages: []agents.Message{{Role: agents.RoleUser, Content: "hi"}}}, nil)
			took := time.Since(started)
			if agents.KindOf(err) != agents.KindTimeout {
				t.Errorf("%s (headers %v): err = %v (kind %q), want timeout", kind, headers, err, agents.KindOf(err))
				continue
			}
			if want := "The model sent nothing for 300ms after the request"; !strings.Contains(err.Error(), want) {
				t.Errorf("%s (headers %v): message %q, want it to contain %q", kind, headers, err, want)
			}
			if took < 300*time.Millisecond || took > 3*time.Second {
				t.Errorf("%s (headers %v): failed after %s, want soon after the 300ms limit", kind, headers, took)
			}
			if res.Complete || res.Content != "" {
				t.Errorf("%s (headers %v): result %+v, want incomplete and empty", kind, headers, res)
			}
		}
	}
}

// An upstream that stops halfway fails after the idle limit, keeping the text it sent; a first-byte
// limit far longer than the idle one does not delay it.
func TestUpstreamStallingHalfwayFailsAtTheIdleTimeoutAndKeepsTheText(t *testing.T) {
	providers := silentProviders(t, 20*time.Second, 300*time.Millisecond, func(kind string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			if kind == agents.ProviderOpenAI {
				_, _ = w.Write([]byte(chunk("Half") + chunk(" way")))
			} else {
				_, _ = w.Write([]byte(anthropicStart("Half way")))
			}
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	})
	for kind, p := range providers {
		started := time.Now()
		res, err := p.Stream(t.Context(), agents.Request{Messages: []agents.Message{{Role: agents.RoleUser, Content: "hi"}}}, nil)
		took := time.Since(started)
		if agents.KindOf(err) != agents.KindTimeout {
			t.Errorf("%s: err = %v (kind %q), want timeout", kind, err, agents.KindOf(err))
			continue
		}
		if want := "The model sent nothing for 300ms after it started answering"; !strings.Contains(err.Error(), want) {
			t.Errorf("%s: message %q, want it to contain %q", kind, err, want)
		}
		if took > 3*time.Second {
			t.Errorf("%s: failed after %s, want soon after the 300ms idle limit", kind, took)
		}
		if res.Content != "Half way" {
			t.Errorf("%s: Content = %q, want the text sent before the stall", kind, res.Content)
		}
	}
}

// A slow but steady upstream is never cut: each delta comes within the idle limit, though the
// whole answer takes longer than it and than the first-byte limit.
func TestUpstreamSlowerThanTheIdleLimitOverallStillCompletes(t *testing.T) {
	providers := silentProviders(t, 300*time.Millisecond, 400*time.Millisecond, func(kind string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if kind != agents.ProviderOpenAI {
				w.WriteHeader(http.StatusTeapot) // only the OpenAI wire is paced here
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			for _, word := range []string{"one", " two", " three", " four"} {
				_, _ = w.Write([]byte(chunk(word)))
				w.(http.Flusher).Flush()
				time.Sleep(150 * time.Millisecond)
			}
			_, _ = w.Write([]byte("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
		}
	})
	res, err := providers[agents.ProviderOpenAI].Stream(t.Context(), agents.Request{Messages: []agents.Message{{Role: agents.RoleUser, Content: "hi"}}}, nil)
	if err != nil || res.Content != "one two three four" {
		t.Fatalf("res = %+v, err = %v, want the whole answer", res, err)
	}
}
