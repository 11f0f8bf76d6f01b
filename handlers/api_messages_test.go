package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"parley/handlers/handlerstest"
)

// toolAnswer is a model that reasons inline, searches once, then answers; later calls answer plainly.
func toolAnswer(t *testing.T) *handlerstest.Upstream {
	return handlerstest.FakeOpenAI(t, func(call int64) handlerstest.Reply {
		switch call {
		case 1:
			return handlerstest.Reply{Deltas: []string{"<think>", "Look it up.", "</think>"}, ToolCalls: []handlerstest.ToolCallDelta{
				{ID: "call_1", Name: "search_workspace", Args: `{"query": "tides"}`}}}
		case 2:
			return handlerstest.Reply{Deltas: []string{"Tides come ", "twice a day."}}
		}
		return handlerstest.Reply{Deltas: []string{"The Moon pulls the sea."}}
	})
}

// ChatGXY's loadPreviousChat (Galaxy client/src/components/ChatGXY.vue) maps every item of
// GET /api/chat/exchange/{id}/messages to a cell: role "user" is the person's cell, anything else
// an assistant cell with feedback buttons, its text from content and its details from
// agent_response. So the default shape must hold only user and assistant items, alternating from
// the user's, none empty, with the answer's reasoning and tools folded into its agent_response.
func TestChatGXYLoadPreviousChatGetsAlternatingUserAndAssistantItems(t *testing.T) {
	app, c := signedIn(t, handlerstest.WithUpstream(toolAnswer(t)))
	api := cookieAPI(t, c)
	var first, second chatResponse
	api.json("POST", "/api/chat", `{"query": "when are the tides?"}`, 200, &first)
	api.json("POST", "/api/chat", fmt.Sprintf(`{"query": "why?", "exchange_id": %d}`, first.ExchangeID), 200, &second)

	var items []struct {
		ID            int64     `json:"id"`
		Role          string    `json:"role"`
		Content       *string   `json:"content"`
		Timestamp     time.Time `json:"timestamp"`
		AgentType     string    `json:"agent_type"`
		Feedback      *int      `json:"feedback"`
		AgentResponse *struct {
			Content     string            `json:"content"`
			Confidence  string            `json:"confidence"`
			Suggestions []json.RawMessage `json:"suggestions"`
			Reasoning   *string           `json:"reasoning"`
			Metadata    struct {
				ToolCalls []struct {
					ID, Name, Arguments, Result, Status string
				} `json:"tool_calls"`
			} `json:"metadata"`
		} `json:"agent_response"`
	}
	raw := api.json("GET", fmt.Sprintf("/api/chat/exchange/%d/messages", first.ExchangeID), "", 200, &items)
	var roles []string
	for i, it := range items {
		roles = append(roles, it.Role)
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		if it.Role != want {
			t.Fatalf("item %d is %q, want %q (alternating from the user's): %s", i, it.Role, want, raw.Body)
		}
		if it.Content == nil || strings.TrimSpace(*it.Content) == "" || it.Timestamp.IsZero() {
			t.Errorf("item %d would be an empty or undated cell: %+v", i, it)
		}
		if it.Role == "assistant" && (it.AgentResponse == nil || it.AgentResponse.Content != *it.Content || it.AgentResponse.Confidence == "" || it.AgentResponse.Suggestions == nil) {
			t.Errorf("answer %d has no usable agent_response: %+v", i, it.AgentResponse)
		}
	}
	if strings.Join(roles, ",") != "user,assistant,user,assistant" {
		t.Fatalf("roles %v", roles)
	}
	answer := items[1]
	if *answer.Content != "Tides come twice a day." {
		t.Errorf("answer %q", *answer.Content)
	}
	if strings.Contains(*answer.Content, "think") || answer.AgentResponse.Reasoning == nil || *answer.AgentResponse.Reasoning != "Look it up." {
		t.Errorf("answer %q, reasoning %v: the inline reasoning must be folded into agent_response.reasoning", *answer.Content, answer.AgentResponse.Reasoning)
	}
	calls := answer.AgentResponse.Metadata.ToolCalls
	if len(calls) != 1 || calls[0].ID != "call_1" || calls[0].Name != "search_workspace" || calls[0].Arguments != `{"query": "tides"}` ||
		calls[0].Status != "complete" || !strings.Contains(calls[0].Result, "results") {
		t.Errorf("folded tool calls %+v", calls)
	}
	if items[3].AgentResponse.Metadata.ToolCalls != nil {
		t.Errorf("the second answer used no tool but lists %+v", items[3].AgentResponse.Metadata.ToolCalls)
	}

	s := newShapeChecker(t, app)
	s.call(api, "GET", fmt.Sprintf("/api/chat/exchange/%d/messages", first.ExchangeID), "")
}

// ?kinds=all lists every item of the five kinds, as before; any other kinds value is refused
// with an error naming the field.
func TestMessagesKindsAllListsEveryItemAndOtherKindsAreRefused(t *testing.T) {
	app, c := signedIn(t, handlerstest.WithUpstream(toolAnswer(t)))
	api := cookieAPI(t, c)
	var first chatResponse
	api.json("POST", "/api/chat", `{"query": "when are the tides?"}`, 200, &first)

	var items []struct{ Role, Content string }
	api.json("GET", fmt.Sprintf("/api/chat/exchange/%d/messages?kinds=all", first.ExchangeID), "", 200, &items)
	var roles []string
	for _, it := range items {
		roles = append(roles, it.Role)
	}
	if strings.Join(roles, ",") != "user,reasoning,function_call,function_call_output,assistant" {
		t.Fatalf("kinds=all roles %v", roles)
	}
	if items[1].Content != "Look it up." {
		t.Errorf("reasoning item %q", items[1].Content)
	}
	res := api.do("GET", fmt.Sprintf("/api/chat/exchange/%d/messages?kinds=tools", first.ExchangeID), "")
	if res.Status != http.StatusBadRequest || !strings.Contains(res.Body, `"field":"kinds"`) {
		t.Fatalf("kinds=tools: %d %s", res.Status, res.Body)
	}
	s := newShapeChecker(t, app)
	s.call(api, "GET", fmt.Sprintf("/api/chat/exchange/%d/messages?kinds=all", first.ExchangeID), "")
	s.call(api, "GET", fmt.Sprintf("/api/chat/exchange/%d/messages?kinds=tools", first.ExchangeID), "")
}
