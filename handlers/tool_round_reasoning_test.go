package handlers_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"parley/handlers/handlerstest"
)

// DeepSeek's thinking mode (and Kimi's) answers 400 when an assistant message that called tools
// comes back without its reasoning_content, so every answer that used a tool failed at its second
// round. The follow-up now carries the round's reasoning beside its calls.
func TestToolRoundSendsItsReasoningBackWithItsCalls(t *testing.T) {
	const reasoning = "The notes may mention tides; search first."
	var up *handlerstest.Upstream
	up = handlerstest.FakeOpenAI(t, func(call int64) handlerstest.Reply {
		if call == 1 {
			return handlerstest.Reply{Deltas: []string{"<think>" + reasoning + "</think>"}, ToolCalls: []handlerstest.ToolCallDelta{
				{ID: "call_1", Name: "search_workspace", Args: `{"query":"tides"}`}}}
		}
		var body struct {
			Messages []struct {
				Role             string           `json:"role"`
				ToolCalls        []map[string]any `json:"tool_calls"`
				ReasoningContent *string          `json:"reasoning_content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal([]byte(up.Requests()[call-1]), &body)
		for _, m := range body.Messages {
			if m.Role == "assistant" && len(m.ToolCalls) > 0 && (m.ReasoningContent == nil || *m.ReasoningContent != reasoning) {
				return handlerstest.Reply{Status: http.StatusBadRequest} // as DeepSeek answers
			}
		}
		return handlerstest.Reply{Deltas: []string{"Nothing on tides."}}
	})
	_, c := signedIn(t, handlerstest.WithUpstream(up))
	api := cookieAPI(t, c)
	var res chatResponse
	api.json("POST", "/api/chat", `{"query": "what did I note on tides?"}`, 200, &res)
	if res.Response != "Nothing on tides." || up.Calls.Load() != 2 {
		t.Fatalf("answer %+v after %d calls; last request %s", res, up.Calls.Load(), up.Requests()[len(up.Requests())-1])
	}
}
