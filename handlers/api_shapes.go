package handlers

import (
	"encoding/json"
	"time"

	"parley/db"
)

// The JSON API's shapes follow Galaxy's /api/chat family (schema.py ChatResponse,
// ChatHistoryItemResponse, agents.py AgentResponse), with integer ids and a few added fields
// (message ids, status, title) that Galaxy clients ignore.

// chatResponse is POST /api/chat's answer (Galaxy's ChatResponse). ErrorCode is 0 when the answer
// completed, else the HTTP status the response carries (502 when the model failed), with Error set.
type chatResponse struct {
	Response       string         `json:"response"`
	ErrorCode      int            `json:"error_code"`
	ErrorMessage   string         `json:"error_message"`
	AgentResponse  *agentResponse `json:"agent_response"`
	ExchangeID     int64          `json:"exchange_id"`
	ProcessingTime float64        `json:"processing_time"` // seconds
	QueryID        int64          `json:"query_message_id"`
	MessageID      int64          `json:"message_id"` // the answer, for per-message feedback
	Status         string         `json:"status"`
	Error          *apiErrorBody  `json:"error,omitempty"`
}

type apiErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// agentResponse is Galaxy's AgentResponse: the answer with the agent's own details. Metadata is
// the stored message metadata (model, provider, usage, duration_ms, finish_reason, handoff_info,
// error, …).
type agentResponse struct {
	Content     string             `json:"content"`
	Confidence  string             `json:"confidence"` // low, medium or high
	AgentType   string             `json:"agent_type"`
	Suggestions []actionSuggestion `json:"suggestions"`
	Metadata    json.RawMessage    `json:"metadata"`
	Reasoning   *string            `json:"reasoning"`
}

// actionSuggestion is Galaxy's ActionSuggestion; Parley's cards open an in-app link (view_external
// with parameters.url).
type actionSuggestion struct {
	ActionType  string            `json:"action_type"`
	Description string            `json:"description"`
	Parameters  map[string]string `json:"parameters"`
	Confidence  string            `json:"confidence"`
	Priority    int               `json:"priority"`
}

// historyItem is one exchange of GET /api/chat/history (Galaxy's ChatHistoryItemResponse): the
// first query, the latest answer on the branch on screen, and message_count = the number of turns.
type historyItem struct {
	ID            int64          `json:"id"`
	Query         string         `json:"query"`
	Response      string         `json:"response"`
	AgentType     string         `json:"agent_type"`
	AgentResponse *agentResponse `json:"agent_response"`
	Timestamp     time.Time      `json:"timestamp"`
	Feedback      *int           `json:"feedback"`
	MessageCount  int            `json:"message_count"`
	Title         string         `json:"title"`
	PageID        *int64         `json:"page_id"`
	UpdatedAt     time.Time      `json:"updated_at"`
}

// messageItem is one message of GET /api/chat/exchange/{id}/messages: Galaxy's {role, content,
// timestamp} (assistant items add agent_type, agent_response, feedback), for all five roles, with
// the message's id, status, parent and tool fields.
type messageItem struct {
	ID             int64          `json:"id"`
	Role           string         `json:"role"`
	Content        string         `json:"content"`
	Timestamp      time.Time      `json:"timestamp"`
	Status         string         `json:"status"`
	ParentID       *int64         `json:"parent_id"`
	AgentType      string         `json:"agent_type,omitempty"`
	AgentResponse  *agentResponse `json:"agent_response,omitempty"`
	Feedback       *int           `json:"feedback"`
	FeedbackReason string         `json:"feedback_reason,omitempty"`
	ToolName       string         `json:"tool_name,omitempty"`
	ToolCallID     string         `json:"tool_call_id,omitempty"`
	Arguments      string         `json:"arguments,omitempty"`
	Result         string         `json:"result,omitempty"`
	DurationMS     *int           `json:"duration_ms,omitempty"`
}

// feedbackInt is Galaxy's feedback integer: 1 thumbs up, 0 thumbs down, nil none.
func feedbackInt(rating *string) *int {
	if rating == nil {
		return nil
	}
	n := 0
	if *rating == db.RatingUp {
		n = 1
	}
	return &n
}

// newAgentResponse builds Galaxy's AgentResponse from an answer's text, agent type, metadata and
// reasoning ("" for none).
func newAgentResponse(content, agentType string, metadata json.RawMessage, reasoning string) *agentResponse {
	var meta messageMeta
	_ = json.Unmarshal(metadata, &meta)
	r := &agentResponse{Content: content, Confidence: meta.Confidence, AgentType: agentType,
		Suggestions: []actionSuggestion{}, Metadata: metadata}
	if r.Confidence == "" {
		r.Confidence = "medium"
	}
	if len(r.Metadata) == 0 {
		r.Metadata = json.RawMessage(`{}`)
	}
	for _, s := range meta.Suggestions {
		r.Suggestions = append(r.Suggestions, actionSuggestion{ActionType: "view_external", Description: s.Label,
			Parameters: map[string]string{"url": s.URL}, Confidence: r.Confidence, Priority: 1})
	}
	if reasoning != "" {
		r.Reasoning = &reasoning
	}
	return r
}

// newMessageItem is a stored message in the API's shape; reasoning is the text of the answer's
// reasoning items (for an assistant message's agent_response).
func newMessageItem(m db.Message, reasoning string) messageItem {
	it := messageItem{ID: m.ID, Role: m.Role, Content: m.Content, Timestamp: m.CreatedAt.UTC(), Status: m.Status,
		ParentID: m.ParentID, Feedback: feedbackInt(m.Feedback), FeedbackReason: m.FeedbackReason,
		ToolName: m.ToolName, ToolCallID: m.ToolCallID, Arguments: m.ToolArguments, Result: m.ToolResult, DurationMS: m.DurationMS}
	if m.Role != db.RoleUser {
		it.AgentType = m.AgentType
	}
	if m.Role == db.RoleAssistant {
		it.AgentResponse = newAgentResponse(m.Content, m.AgentType, m.Metadata, reasoning)
	}
	return it
}

// newMessageItems converts a conversation, giving each answer the text of its reasoning items.
func newMessageItems(msgs []db.Message) []messageItem {
	reasoning := map[int64]string{}
	for _, m := range msgs {
		if m.Role == db.RoleReasoning && m.ParentID != nil {
			reasoning[*m.ParentID] += m.Content
		}
	}
	out := make([]messageItem, len(msgs))
	for i, m := range msgs {
		out[i] = newMessageItem(m, reasoning[m.ID])
	}
	return out
}

// galaxyToolCall is one tool call folded into an answer's agent_response.metadata.tool_calls in
// Galaxy's shape of /messages: the call and its output, joined by the call id.
type galaxyToolCall struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Arguments  string `json:"arguments"`
	Result     string `json:"result"`
	Status     string `json:"status"`
	DurationMS *int   `json:"duration_ms"`
}

// newGalaxyMessageItems converts a conversation into Galaxy's alternating user/assistant items:
// reasoning items become the answer's agent_response.reasoning and tool items its
// agent_response.metadata.tool_calls, in order.
func newGalaxyMessageItems(msgs []db.Message) []messageItem {
	reasoning := map[int64]string{}
	calls := map[int64][]galaxyToolCall{}
	for _, m := range msgs {
		if m.ParentID == nil {
			continue
		}
		answer := *m.ParentID
		switch m.Role {
		case db.RoleReasoning:
			reasoning[answer] += m.Content
		case db.RoleFunctionCall:
			calls[answer] = append(calls[answer], galaxyToolCall{ID: m.ToolCallID, Name: m.ToolName, Arguments: m.ToolArguments, Status: m.Status})
		case db.RoleFunctionCallOutput:
			list := calls[answer]
			for i := len(list) - 1; i >= 0; i-- {
				if list[i].ID == m.ToolCallID && list[i].Result == "" {
					list[i].Result, list[i].Status, list[i].DurationMS = m.ToolResult, m.Status, m.DurationMS
					break
				}
			}
		}
	}
	out := []messageItem{}
	for _, m := range msgs {
		if m.Role != db.RoleUser && m.Role != db.RoleAssistant {
			continue
		}
		it := newMessageItem(m, reasoning[m.ID])
		if list := calls[m.ID]; len(list) > 0 && it.AgentResponse != nil {
			it.AgentResponse.Metadata = withToolCalls(it.AgentResponse.Metadata, list)
		}
		out = append(out, it)
	}
	return out
}

// withToolCalls adds "tool_calls" to a metadata object.
func withToolCalls(metadata json.RawMessage, calls []galaxyToolCall) json.RawMessage {
	fields := map[string]json.RawMessage{}
	_ = json.Unmarshal(metadata, &fields)
	if fields == nil {
		fields = map[string]json.RawMessage{}
	}
	fields["tool_calls"], _ = json.Marshal(calls)
	b, err := json.Marshal(fields)
	if err != nil {
		return metadata
	}
	return b
}

// newHistoryItems converts history rows.
func newHistoryItems(rows []db.ExchangeOverview) []historyItem {
	out := make([]historyItem, len(rows))
	for i, r := range rows {
		it := historyItem{ID: r.ID, Query: r.Query, Response: r.Response, AgentType: r.AgentType, Timestamp: r.CreatedAt.UTC(),
			Feedback: feedbackInt(r.Feedback), MessageCount: r.Turns, Title: r.Title, PageID: r.PageID, UpdatedAt: r.UpdatedAt.UTC()}
		if r.QueryAt != nil {
			it.Timestamp = r.QueryAt.UTC()
		}
		if r.AnswerID != 0 {
			it.AgentResponse = newAgentResponse(r.Response, r.AgentType, r.Metadata, "")
		}
		out[i] = it
	}
	return out
}
