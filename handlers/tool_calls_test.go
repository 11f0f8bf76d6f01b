package handlers_test

import (
	"fmt"
	"strings"
	"testing"

	"parley/handlers/handlerstest"
)

// A call whose arguments are not a JSON object never runs its tool: its output is a clear error
// the person sees under the call and the model gets back, and the follow-up request carries the
// call with {} arguments, which strict servers accept.
func TestBrokenToolArgumentsAreAToolErrorNeverARun(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(call int64) handlerstest.Reply {
		if call == 1 {
			return handlerstest.Reply{ToolCalls: []handlerstest.ToolCallDelta{
				{ID: "call_1", Name: "search_workspace", Args: `{"query": "tide`},
				{Args: ` notes"}{"query": "moon"}`}}}
		}
		return handlerstest.Reply{Deltas: []string{"Sorry, let me try again."}}
	})
	_, c := signedIn(t, handlerstest.WithUpstream(up))
	api := cookieAPI(t, c)
	var res chatResponse
	api.json("POST", "/api/chat", `{"query": "find my tide notes"}`, 200, &res)

	var items []struct {
		Role, Status, Arguments, Result string
	}
	api.json("GET", fmt.Sprintf("/api/chat/exchange/%d/messages?kinds=all", res.ExchangeID), "", 200, &items)
	var output string
	for _, it := range items {
		if it.Role == "function_call_output" {
			output = it.Result
			if it.Status != "failed" {
				t.Errorf("the output of a call that could not run is %q, want failed", it.Status)
			}
		}
	}
	if !strings.Contains(output, "more than one JSON value") || strings.Contains(output, "results") {
		t.Fatalf("tool output %q, want an error saying what is wrong with the arguments", output)
	}
	body := up.LastRequest()
	msgs, _ := body["messages"].([]any)
	var sentArgs, sentOutput string
	for _, m := range msgs {
		m := m.(map[string]any)
		if calls, ok := m["tool_calls"].([]any); ok && len(calls) > 0 {
			sentArgs = calls[0].(map[string]any)["function"].(map[string]any)["arguments"].(string)
		}
		if m["role"] == "tool" {
			sentOutput, _ = m["content"].(string)
		}
	}
	if sentArgs != "{}" || sentOutput != output {
		t.Errorf("follow-up sent arguments %q and tool output %q; want {} and %q", sentArgs, sentOutput, output)
	}
}

// Gemini's OpenAI-compatible endpoint sends two calls without an index or an id and finishes with
// "stop": both run, and the follow-up carries both calls and both outputs, never one merged call.
func TestCallsWithoutIndexAllRunEachWithItsOwnArguments(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(call int64) handlerstest.Reply {
		if call == 1 {
			return handlerstest.Reply{Finish: "stop", ToolCalls: []handlerstest.ToolCallDelta{
				{NoIndex: true, Name: "search_workspace", Args: `{"query":"alpha"}`},
				{NoIndex: true, Name: "search_workspace", Args: `{"query":"beta"}`}}}
		}
		return handlerstest.Reply{Deltas: []string{"Nothing on alpha or beta."}}
	})
	_, c := signedIn(t, handlerstest.WithUpstream(up))
	api := cookieAPI(t, c)
	var res chatResponse
	api.json("POST", "/api/chat", `{"query": "alpha and beta?"}`, 200, &res)
	if res.Response != "Nothing on alpha or beta." {
		t.Fatalf("answer %+v", res)
	}
	var items []struct{ Role, Status, Arguments string }
	api.json("GET", fmt.Sprintf("/api/chat/exchange/%d/messages?kinds=all", res.ExchangeID), "", 200, &items)
	var args []string
	for _, it := range items {
		if it.Role == "function_call" {
			args = append(args, it.Arguments)
			if it.Status != "complete" {
				t.Errorf("call %s is %s", it.Arguments, it.Status)
			}
		}
	}
	if strings.Join(args, " ") != `{"query":"alpha"} {"query":"beta"}` {
		t.Fatalf("calls %q, want alpha and beta apart", args)
	}
	msgs, _ := up.LastRequest()["messages"].([]any)
	calls, outputs := 0, 0
	for _, m := range msgs {
		m := m.(map[string]any)
		if tc, ok := m["tool_calls"].([]any); ok {
			calls += len(tc)
		}
		if m["role"] == "tool" {
			outputs++
		}
	}
	if calls != 2 || outputs != 2 {
		t.Errorf("follow-up carries %d calls and %d outputs, want 2 and 2", calls, outputs)
	}
}
