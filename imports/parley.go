package imports

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"parley/db"
)

// Parley's own JSON export (Export ▾ → JSON, handlers/history_export.go) holds the conversation and
// every message with its id, parent_id, position, role, status, tool fields, metadata, feedback and
// whether it is on the branch on screen: everything comes back as it was.

type parleyConversation struct {
	ID        int64     `json:"id"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Agent     *struct {
		ID int64 `json:"id"`
	} `json:"agent"`
	Messages []db.ExportedMessage `json:"messages"`
}

var parleyRoles = []string{db.RoleUser, db.RoleAssistant, db.RoleFunctionCall, db.RoleFunctionCallOutput, db.RoleReasoning}

var parleyStatuses = []string{db.StatusComplete, db.StatusFailed, db.StatusCancelled, db.StatusInterrupted,
	db.StatusPending, db.StatusStreaming}

func convertParley(raw json.RawMessage) (db.ImportedExchange, error) {
	var c parleyConversation
	var x db.ImportedExchange
	if err := json.Unmarshal(raw, &c); err != nil {
		return x, errorf("its fields have unexpected types (%s)", jsonReason(err))
	}
	x.Title, x.CreatedAt, x.UpdatedAt = c.Title, c.CreatedAt.UTC(), c.UpdatedAt.UTC()
	x.Key = fmt.Sprintf("%d@%s", c.ID, c.CreatedAt.UTC().Format(time.RFC3339Nano))
	if c.Agent != nil {
		x.AgentID = &c.Agent.ID
	}
	// Ids order versions (branches.go): store messages in id order, keeping their positions.
	msgs := slices.Clone(c.Messages)
	slices.SortFunc(msgs, func(a, b db.ExportedMessage) int { return int(a.ID - b.ID) })
	index := make(map[int64]int, len(msgs))
	for i, m := range msgs {
		if _, dup := index[m.ID]; dup {
			return x, errorf("message %d appears twice", m.ID)
		}
		index[m.ID] = i
	}
	x.Leaf = -1
	allOnBranch, leafPos := true, -1
	for _, m := range msgs {
		if !slices.Contains(parleyRoles, m.Role) {
			return x, errorf("message %d has the role %q (expected %s)", m.ID, m.Role, strings.Join(parleyRoles, ", "))
		}
		if !slices.Contains(parleyStatuses, m.Status) {
			return x, errorf("message %d has the status %q", m.ID, m.Status)
		}
		if m.Feedback != nil && *m.Feedback != "up" && *m.Feedback != "down" {
			return x, errorf("message %d has the feedback %q (expected up or down)", m.ID, *m.Feedback)
		}
		parent := -1
		if m.ParentID != nil {
			p, ok := index[*m.ParentID]
			if !ok {
				return x, errorf("message %d has parent %d, which is not in the export", m.ID, *m.ParentID)
			}
			parent = p
		}
		status := m.Status
		if status == db.StatusPending || status == db.StatusStreaming {
			status = db.StatusInterrupted // it was being written when exported; nothing will finish it here
		}
		meta := m.Metadata
		if len(meta) > 0 && string(meta) != "null" {
			var probe map[string]any
			if json.Unmarshal(meta, &probe) != nil {
				return x, errorf("message %d has metadata that is not a JSON object", m.ID)
			}
			meta = json.RawMessage(strings.ReplaceAll(string(meta), `\u0000`, `\ufffd`))
		}
		x.Messages = append(x.Messages, db.ImportedMessage{Parent: parent, Position: m.Position, Role: m.Role,
			Content: clean(m.Content), Status: status, AgentID: m.AgentID, AgentType: m.AgentType, ToolName: m.ToolName,
			ToolCallID: m.ToolCallID, ToolArguments: clean(m.ToolArguments), ToolResult: clean(m.ToolResult),
			DurationMS: m.DurationMS, Metadata: meta, Feedback: m.Feedback, FeedbackReason: m.FeedbackReason,
			CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC()})
		allOnBranch = allOnBranch && m.OnBranch
		if m.OnBranch && (m.Role == db.RoleUser || m.Role == db.RoleAssistant) && m.Position > leafPos {
			leafPos, x.Leaf = m.Position, len(x.Messages)-1
		}
	}
	// A cycle has no root: walk up at most len steps, stopping at a message known to reach one.
	rooted := make([]bool, len(x.Messages))
	var path []int
	for i := range x.Messages {
		path = path[:0]
		for at := i; at >= 0 && !rooted[at]; at = x.Messages[at].Parent {
			if len(path) > len(x.Messages) {
				return x, errorf("message %d is its own ancestor", msgs[i].ID)
			}
			path = append(path, at)
		}
		for _, at := range path {
			rooted[at] = true
		}
	}
	if allOnBranch {
		x.Leaf = -1 // never branched: every message is on screen
	}
	return x, nil
}
