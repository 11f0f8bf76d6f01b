package db

import (
	"context"
	"encoding/json"
	"time"
)

// ExportedMessage is one message of a conversation as exported: every column a person may see,
// feedback included, and whether it is on the branch on screen.
type ExportedMessage struct {
	ID             int64           `db:"id" json:"id"`
	ParentID       *int64          `db:"parent_id" json:"parent_id"`
	Position       int             `db:"position" json:"position"`
	Role           string          `db:"role" json:"role"`
	Content        string          `db:"content" json:"content"`
	Status         string          `db:"status" json:"status"`
	AgentID        *int64          `db:"agent_id" json:"agent_id"`
	AgentType      string          `db:"agent_type" json:"agent_type"`
	ToolName       string          `db:"tool_name" json:"tool_name,omitempty"`
	ToolCallID     string          `db:"tool_call_id" json:"tool_call_id,omitempty"`
	ToolArguments  string          `db:"tool_arguments" json:"tool_arguments,omitempty"`
	ToolResult     string          `db:"tool_result" json:"tool_result,omitempty"`
	DurationMS     *int            `db:"duration_ms" json:"duration_ms,omitempty"`
	Metadata       json.RawMessage `db:"metadata" json:"metadata"`
	Feedback       *string         `db:"feedback" json:"feedback"`
	FeedbackReason string          `db:"feedback_reason" json:"feedback_reason"`
	OnBranch       bool            `db:"on_branch" json:"on_branch"`
	CreatedAt      time.Time       `db:"created_at" json:"created_at"`
	UpdatedAt      time.Time       `db:"updated_at" json:"updated_at"`
}

// ExportMessages returns every message of an exchange, other versions (branches) included, in
// position order; OnBranch marks the branch on screen. The caller checks ownership first.
func (s *Store) ExportMessages(ctx context.Context, exchangeID int64) ([]ExportedMessage, error) {
	var out []ExportedMessage
	err := s.DB.SelectContext(ctx, &out, `SELECT m.id, m.parent_id, m.position, m.role, m.content, m.status,
		m.agent_id, m.agent_type, m.tool_name, m.tool_call_id, m.tool_arguments, m.tool_result, m.duration_ms, m.metadata,
		m.feedback, m.feedback_reason, m.on_branch, m.created_at, m.updated_at
		FROM chat_message m WHERE m.exchange_id = $1 ORDER BY m.position, m.id`, exchangeID)
	return out, notFound(err, "export messages")
}
