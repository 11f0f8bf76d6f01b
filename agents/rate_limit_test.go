package agents_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"parley/agents"
)

// A provider that answers 429 (or 529 overloaded) asking to retry later than the first-byte limit
// allows fails at once with the provider's own reason. Before, the SDKs slept through Retry-After
// until the first-byte limit passed, and the person read "The model sent nothing for 60 s" about
// a model that had answered "Rate limit reached" in milliseconds.
func TestRateLimitWhoseRetryAfterOutlastsTheFirstByteLimitFailsAtOnceWithItsReason(t *testing.T) {
	for _, header := range []struct{ name, value string }{{"Retry-After", "7"}, {"Retry-After-Ms", "7000"},
		{"Retry-After", time.Now().Add(time.Minute).UTC().Format(http.TimeFormat)}} {
		var calls atomic.Int64
		providers := silentProviders(t, 2*time.Second, 10*time.Second, func(string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set(header.name, header.value)
				w.WriteHeader(http.StatusTooManyRequests)
				w.Write([]byte(`{"type":"error","error":{"type":"rate_limit_error","message":"Rate limit reached for requests per min"}}`))
			}
		})
		for kind, p := range providers {
			calls.Store(0)
			started := time.Now()
			_, err := p.Stream(t.Context(), agents.Request{Messages: []agents.Message{{Role: agents.RoleUser, Content: "hi"}}}, nil)
			took := time.Since(started)
			if agents.KindOf(err) != agents.KindHTTPError || !strings.Contains(err.Error(), "429") || !strings.Contains(err.Error(), "Rate limit reached") {
				t.Errorf("%s (%s: %s): err = %v (kind %q), want the provider's HTTP 429 and its reason", kind, header.name, header.value, err, agents.KindOf(err))
			}
			if took > time.Second || calls.Load() != 1 {
				t.Errorf("%s (%s: %s): failed after %s and %d calls, want at once after one", kind, header.name, header.value, took, calls.Load())
			}
		}
	}
}

// A short Retry-After is still honoured: the SDK retries and the answer arrives.
func TestRateLimitWithAShortRetryAfterIsRetried(t *testing.T) {
	var calls atomic.Int64
	providers := silentProviders(t, 5*time.Second, 10*time.Second, func(kind string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1)%2 == 1 {
				w.Header().Set("Retry-After-Ms", "100")
				w.WriteHeader(http.StatusTooManyRequests)
				w.Write([]byte(`{"error":{"message":"slow down"}}`))
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			if kind == agents.ProviderAnthropic {
				w.Write([]byte(anthropicStart("hello") + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"))
				return
			}
			w.Write([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hello\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
		}
	})
	for kind, p := range providers {
		res, err := p.Stream(t.Context(), agents.Request{Messages: []agents.Message{{Role: agents.RoleUser, Content: "hi"}}}, nil)
		if err != nil || res.Content != "hello" {
			t.Errorf("%s: %q, %v; want the retried answer", kind, res.Content, err)
		}
	}
}
