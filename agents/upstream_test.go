package agents_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"parley/agents"
)

// testKey is the API key the fake upstreams expect; no error may ever show it.
const testKey = "sk-test-5ecret-K3y-value"

// writeMode is how a fake upstream puts a recorded body on the wire.
type writeMode struct {
	name string
	tiny bool   // 1–3 byte writes, each flushed
	eol  string // what each LF becomes
}

var writeModes = []writeMode{
	{name: "whole", eol: "\n"},
	{name: "tiny-writes", tiny: true, eol: "\n"},
	{name: "crlf", eol: "\r\n"},
	{name: "crlf-tiny-writes", tiny: true, eol: "\r\n"},
	{name: "cr", eol: "\r"},
}

// replay writes body as a text/event-stream response (unless the handler set another type) in the given mode, then returns, which
// ends the response.
func replay(w http.ResponseWriter, body []byte, mode writeMode) {
	if mode.eol != "\n" {
		body = bytes.ReplaceAll(body, []byte("\n"), []byte(mode.eol))
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	w.WriteHeader(http.StatusOK)
	if !mode.tiny {
		_, _ = w.Write(body)
		return
	}
	flusher := w.(http.Flusher)
	for i, n := 0, 0; i < len(body); i += n {
		n = min(1+i%3, len(body)-i)
		if _, err := w.Write(body[i : i+n]); err != nil {
			return
		}
		flusher.Flush()
	}
}

// upstream is a fake model server: it records each request and answers with handle.
type upstream struct {
	*httptest.Server
	requests chan recorded
}

type recorded struct {
	method, path string
	header       http.Header
	body         []byte
}

func newUpstream(t *testing.T, handle http.HandlerFunc) *upstream {
	t.Helper()
	u := &upstream{requests: make(chan recorded, 16)}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		select {
		case u.requests <- recorded{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), body: body}:
		default:
		}
		handle(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) lastRequest(t *testing.T) recorded {
	t.Helper()
	select {
	case r := <-u.requests:
		return r
	default:
		t.Fatal("the upstream received no request")
		return recorded{}
	}
}

func openAIProvider(t *testing.T, baseURL string) agents.Provider {
	t.Helper()
	p, err := agents.New(agents.Config{Kind: "openai", BaseURL: baseURL + "/v1", APIKey: testKey, Model: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func anthropicProvider(t *testing.T, baseURL string) agents.Provider {
	t.Helper()
	p, err := agents.New(agents.Config{Kind: "anthropic", BaseURL: baseURL, APIKey: testKey, Model: "claude-test"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// recorder collects the events a stream emits.
type recorder struct {
	events []agents.Event
}

func (r *recorder) emit(ev agents.Event) error {
	r.events = append(r.events, ev)
	return nil
}

func (r *recorder) kinds() []agents.EventKind {
	var out []agents.EventKind
	for _, ev := range r.events {
		out = append(out, ev.Kind)
	}
	return out
}

// checkEvents pins what every stream's events must satisfy against its Result.
func checkEvents(t *testing.T, rec *recorder, res agents.Result) {
	t.Helper()
	// Replaying the events as a receiver does gives the Result's text and reasoning.
	var text, reasoning strings.Builder
	moves := 0
	for _, ev := range rec.events {
		switch ev.Kind {
		case agents.EventTextDelta:
			text.WriteString(ev.Text)
		case agents.EventReasoningDelta:
			reasoning.WriteString(ev.Text)
		case agents.EventTextWasReasoning:
			if moves++; ev.Text != text.String() || moves > 1 {
				t.Errorf("text_was_reasoning #%d moves %q, the text so far is %q", moves, ev.Text, text.String())
			}
			text.Reset()
			reasoning.WriteString(ev.Text)
		}
	}
	if text.String() != res.Content {
		t.Errorf("text events give %q, Content is %q", text.String(), res.Content)
	}
	if reasoning.String() != res.Reasoning {
		t.Errorf("reasoning events give %q, Reasoning is %q", reasoning.String(), res.Reasoning)
	}
	for i, ev := range rec.events {
		if !utf8.ValidString(ev.Text) {
			t.Errorf("event %d (%s) carries invalid UTF-8 %q", i, ev.Kind, ev.Text)
		}
		if (ev.Kind == agents.EventTextDelta || ev.Kind == agents.EventReasoningDelta) && ev.Text == "" {
			t.Errorf("event %d (%s) is empty", i, ev.Kind)
		}
	}
	if len(rec.events) == 0 {
		t.Fatal("no events")
	}
	last := rec.events[len(rec.events)-1]
	switch {
	case res.Complete && (last.Kind != agents.EventFinish || last.FinishReason != res.FinishReason):
		t.Errorf("complete stream ends with %s %q, want finish %q", last.Kind, last.FinishReason, res.FinishReason)
	case !res.Complete && (last.Kind != agents.EventError || last.Err == nil):
		t.Errorf("failed stream ends with %s, want error", last.Kind)
	}
	ended := map[int]string{}
	for _, ev := range rec.events {
		if ev.Kind == agents.EventToolCallEnd {
			ended[ev.ToolCall.Index] = ev.ToolCall.Arguments
		}
	}
	if res.Complete {
		for _, tc := range res.ToolCalls {
			if args, ok := ended[tc.Index]; !ok || args != tc.Arguments {
				t.Errorf("tool_call_end for call %d has %q, Result has %q", tc.Index, args, tc.Arguments)
			}
		}
	}
}

func asUpstream(err error, target **agents.UpstreamError) bool { return errors.As(err, target) }
