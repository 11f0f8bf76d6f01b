package agents_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/agents"
)

func offlineStream(t *testing.T, p agents.Provider, req agents.Request) (agents.Result, *recorder) {
	t.Helper()
	rec := &recorder{}
	res, err := p.Stream(t.Context(), req, rec.emit)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	checkEvents(t, rec, res)
	for _, ev := range rec.events {
		if ev.Kind == agents.EventTextDelta && len(strings.Fields(ev.Text)) > 1 {
			t.Errorf("text_delta %q holds more than one word", ev.Text)
		}
	}
	return res, rec
}

func userAsks(text string) agents.Request {
	return agents.Request{
		Messages: []agents.Message{{Role: "user", Content: text}},
		Tools:    []agents.Tool{agents.SearchWorkspaceTool},
	}
}

func TestOfflineQuestionReasonsThenCallsSearchWorkspace(t *testing.T) {
	for _, question := range []string{
		"What do my notes say about tide pools?",
		"Find my notes on tide pools",
		"where are the tide pools notes",
	} {
		t.Run(question, func(t *testing.T) {
			res, rec := offlineStream(t, agents.NewOffline(0), userAsks(question))
			if res.Reasoning == "" || !strings.Contains(res.Reasoning, "tide pools") || !strings.Contains(res.Reasoning, "search the workspace") {
				t.Errorf("Reasoning = %q", res.Reasoning)
			}
			if res.Content != "" || res.FinishReason != "tool_calls" || !res.Complete {
				t.Errorf("Content %q finish %q complete %v", res.Content, res.FinishReason, res.Complete)
			}
			if len(res.ToolCalls) != 1 || res.ToolCalls[0].Name != "search_workspace" || res.ToolCalls[0].ID == "" {
				t.Fatalf("ToolCalls = %+v", res.ToolCalls)
			}
			var args agents.SearchWorkspaceArgs
			if err := json.Unmarshal([]byte(res.ToolCalls[0].Arguments), &args); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(args.Query, "tide") || !strings.Contains(args.Query, "pools") || strings.Contains(args.Query, "my") {
				t.Errorf("query = %q, want the keywords", args.Query)
			}
			want := []agents.EventKind{agents.EventToolCallStart, agents.EventToolCallDelta, agents.EventUsage, agents.EventToolCallEnd, agents.EventFinish}
			if got := rec.kinds(); !slices.Equal(got[len(got)-len(want):], want) || got[0] != agents.EventReasoningDelta {
				t.Errorf("events %v", got)
			}
		})
	}
}

func TestOfflineAnswersASearchResultWithLinks(t *testing.T) {
	found := agents.SearchResults{Results: []agents.SearchResult{
		{Title: "Tide pool field notes", URL: "/pages/12", Snippet: "Anemones close\nwhen the tide goes out.", Kind: "page"},
		{Title: "Chat about [tides]", URL: "/chats/9", Snippet: "Low tide is at 6am.", Kind: "conversation"},
	}}
	res, _ := offlineStream(t, agents.NewOffline(0), searchedFor("tide pools", found))
	for _, want := range []string{
		"[Tide pool field notes](/pages/12)",
		`[Chat about \[tides\]](/chats/9)`,
		"Anemones close when the tide goes out.",
		"**tide pools**",
		"offline",
		"PARLEY_OPENAI_BASE_URL",
		"PARLEY_ANTHROPIC_API_KEY",
	} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("answer lacks %q:\n%s", want, res.Content)
		}
	}
	if res.FinishReason != "stop" || len(res.ToolCalls) != 0 || res.Usage == nil || res.Usage.CompletionTokens != len(strings.Fields(res.Content)) {
		t.Errorf("finish %q calls %v usage %+v", res.FinishReason, res.ToolCalls, res.Usage)
	}
}

func TestOfflineSaysSoWhenNothingWasFound(t *testing.T) {
	res, _ := offlineStream(t, agents.NewOffline(0), searchedFor("narwhals", agents.SearchResults{}))
	for _, want := range []string{"found nothing", "**narwhals**", "What I can do", "PARLEY_OPENAI_BASE_URL", "PARLEY_ANTHROPIC_API_KEY"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("answer lacks %q:\n%s", want, res.Content)
		}
	}
}

// searchedFor is the conversation after the offline provider asked for a search and the caller ran it.
func searchedFor(query string, found agents.SearchResults) agents.Request {
	args, _ := json.Marshal(agents.SearchWorkspaceArgs{Query: query})
	result, _ := json.Marshal(found)
	return agents.Request{
		Messages: []agents.Message{
			{Role: "user", Content: "Where are my notes about " + query + "?"},
			{Role: "assistant", ToolCalls: []agents.ToolCall{{ID: "call_offline_1", Name: "search_workspace", Arguments: string(args)}}},
			{Role: "tool", ToolCallID: "call_offline_1", Content: string(result)},
		},
		Tools: []agents.Tool{agents.SearchWorkspaceTool},
	}
}

func TestOfflineGreetingIsAnsweredDirectly(t *testing.T) {
	for _, text := range []string{"Hello!", "hi there", "How are you?", "Thanks, that was nice."} {
		t.Run(text, func(t *testing.T) {
			res, _ := offlineStream(t, agents.NewOffline(0), userAsks(text))
			if res.Reasoning != "" || len(res.ToolCalls) != 0 || res.FinishReason != "stop" {
				t.Errorf("reasoning %q calls %v finish %q, want a direct answer", res.Reasoning, res.ToolCalls, res.FinishReason)
			}
			for _, want := range []string{"offline assistant", "search your pages and conversations", "PARLEY_OPENAI_BASE_URL"} {
				if !strings.Contains(res.Content, want) {
					t.Errorf("answer lacks %q:\n%s", want, res.Content)
				}
			}
		})
	}
}

// Like a model, the offline provider calls only the tools it is offered.
func TestOfflineQuestionWithoutTheToolIsAnsweredDirectly(t *testing.T) {
	req := userAsks("What do my notes say about tide pools?")
	req.Tools = nil
	res, _ := offlineStream(t, agents.NewOffline(0), req)
	if len(res.ToolCalls) != 0 || !strings.Contains(res.Content, "offline assistant") {
		t.Errorf("Result = %+v", res)
	}
}

// The offline provider drives the same loop a model does: ask, run the tool call, ask again.
func TestOfflineDrivesTheAgentLoop(t *testing.T) {
	p, err := agents.New(agents.Config{})
	if err != nil {
		t.Fatal(err)
	}
	req := userAsks("Can you find the lighthouse page?")
	var queries []string
	for turn := 0; turn < 3; turn++ {
		res, err := p.Stream(t.Context(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Messages = append(req.Messages, agents.Message{Role: "assistant", Content: res.Content, ToolCalls: res.ToolCalls})
		if len(res.ToolCalls) == 0 {
			if !strings.Contains(res.Content, "[Lighthouses](/pages/3)") {
				t.Errorf("final answer lacks the link:\n%s", res.Content)
			}
			if len(queries) != 1 || queries[0] != "lighthouse page" {
				t.Errorf("searched for %q", queries)
			}
			return
		}
		for _, call := range res.ToolCalls {
			var args agents.SearchWorkspaceArgs
			_ = json.Unmarshal([]byte(call.Arguments), &args)
			queries = append(queries, args.Query)
			out, _ := json.Marshal(agents.SearchResults{Results: []agents.SearchResult{{Title: "Lighthouses", URL: "/pages/3", Kind: "page"}}})
			req.Messages = append(req.Messages, agents.Message{Role: "tool", ToolCallID: call.ID, Content: string(out)})
		}
	}
	t.Fatal("the loop did not end with an answer")
}

func TestOfflineStreamsWordByWordWithTheDelay(t *testing.T) {
	const delay = 5 * time.Millisecond
	var stamps []time.Time
	emit := func(ev agents.Event) error {
		if ev.Kind == agents.EventTextDelta {
			stamps = append(stamps, time.Now())
		}
		return nil
	}
	res, err := agents.NewOffline(delay).Stream(t.Context(), agents.Request{Messages: []agents.Message{{Role: "user", Content: "hello"}}}, emit)
	if err != nil {
		t.Fatal(err)
	}
	if len(stamps) != len(strings.Fields(res.Content)) {
		t.Errorf("%d text events for %d words", len(stamps), len(strings.Fields(res.Content)))
	}
	for i := 1; i < len(stamps); i++ {
		if gap := stamps[i].Sub(stamps[i-1]); gap < delay-time.Millisecond {
			t.Fatalf("words %d and %d came %s apart, want at least %s", i-1, i, gap, delay)
		}
	}
}

func TestOfflineCancelStopsPromptly(t *testing.T) {
	const delay = 200 * time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	emit := func(ev agents.Event) error {
		if ev.Kind == agents.EventTextDelta {
			cancel()
		}
		return nil
	}
	start := time.Now()
	res, err := agents.NewOffline(delay).Stream(ctx, agents.Request{Messages: []agents.Message{{Role: "user", Content: "hello"}}}, emit)
	if took := time.Since(start); took > delay/2 {
		t.Errorf("Stream took %s after cancel", took)
	}
	if agents.KindOf(err) != agents.KindCanceled || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want canceled", err)
	}
	if res.Complete || res.Content != "Hello! " {
		t.Errorf("Result %q complete=%v, want the first word only", res.Content, res.Complete)
	}
}
