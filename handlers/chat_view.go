package handlers

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	agentpkg "parley/agents"
	"strings"
	"time"
	"unicode/utf8"

	"parley/db"
	"parley/markdown"
	"parley/views"
)

// messageMeta is the part of a message's metadata the views show.
type messageMeta struct {
	Model string `json:"model"`
	Usage *struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	Truncated   bool            `json:"truncated"`
	Handoff     json.RawMessage `json:"handoff_info"`
	Confidence  string          `json:"confidence"`
	Suggestions []struct {
		Label string `json:"label"`
		URL   string `json:"url"`
	} `json:"suggestions"`
	Proposal *struct {
		ID     int64 `json:"id"`
		PageID int64 `json:"page_id"`
	} `json:"proposal"`
}

// messageViews turns stored messages into view models: markdown rendered and sanitised, tool names
// made readable, and speaker groups marked.
func messageViews(msgs []db.Message, agents map[int64]db.Agent) []views.MessageView {
	out := make([]views.MessageView, len(msgs))
	for i := range msgs {
		out[i] = messageViewAt(msgs, i, agents)
	}
	return out
}

// messageViewAt is the view model of msgs[i]. A user message or an answer starts a group (showing
// the name and time) unless the previous message has the same role and is under five minutes
// older; the time stays visible only after such a pause (else on hover). Tool and reasoning items
// never carry the label, since the Tools toggle may hide them.
func messageViewAt(msgs []db.Message, i int, agents map[int64]db.Agent) views.MessageView {
	v := messageView(msgs[i], agents)
	pause := i == 0 || msgs[i].CreatedAt.Sub(msgs[i-1].CreatedAt) > 5*time.Minute
	v.GroupStart = pause || msgs[i].Role != msgs[i-1].Role
	v.ShowTime = pause
	return v
}

// messageView is one message's view model (GroupStart left false).
func messageView(m db.Message, agents map[int64]db.Agent) views.MessageView {
	v := views.MessageView{ID: m.ID, Role: m.Role, Status: m.Status, At: m.CreatedAt, ToolLabel: toolLabel(m.ToolName)}
	if m.AgentID != nil {
		a := agents[*m.AgentID]
		v.AgentName, v.AgentAvatar, v.AgentAccent = a.Name, a.Avatar, agentpkg.ReadTheme(a.Theme).Accent
	}
	if v.AgentName == "" {
		v.AgentName, v.AgentAvatar = "Assistant", "✨"
	}
	switch m.Role {
	case db.RoleUser, db.RoleReasoning:
		v.Text = m.Content
	case db.RoleAssistant:
		var meta messageMeta // only an answer shows its metadata
		_ = json.Unmarshal(m.Metadata, &meta)
		switch {
		case m.Content == "":
		case m.Status == db.StatusPending || m.Status == db.StatusStreaming:
			v.HTML = markdown.Render(m.Content)
		default:
			v.HTML = markdown.RenderFinal(m.Content)
		}
		v.Model = meta.Model
		if meta.Usage != nil {
			v.Tokens = meta.Usage.TotalTokens
		}
		if meta.Error != nil {
			v.Error = meta.Error.Message
		}
		v.Truncated = meta.Truncated
		if m.Status == db.StatusFailed && v.Error == "" {
			v.Error = "The answer failed."
		}
		v.ViaRouter = len(meta.Handoff) > 0 && string(meta.Handoff) != "null"
		var handoff struct {
			Reason string `json:"reason"`
		}
		if v.ViaRouter && json.Unmarshal(meta.Handoff, &handoff) == nil {
			v.HandoffReason = handoff.Reason
		}
		v.Confidence = meta.Confidence
		if meta.Proposal != nil {
			v.ProposalURL = proposalURL(meta.Proposal.PageID, meta.Proposal.ID)
		}
		if m.Feedback != nil {
			v.Feedback, v.FeedbackReason = *m.Feedback, m.FeedbackReason
		}
		for _, s := range meta.Suggestions {
			if isLocalPath(s.URL) { // local links only
				v.Suggestions = append(v.Suggestions, views.Suggestion{Label: s.Label, URL: s.URL})
			}
		}
	case db.RoleFunctionCall:
		v.Arguments, v.ArgumentsMore = argumentsPreview(prettyJSON(m.ToolArguments))
	case db.RoleFunctionCallOutput:
		v.Result = prettyJSON(m.ToolResult)
	}
	if m.DurationMS != nil {
		v.DurationMS = *m.DurationMS
	}
	return v
}

// toolLabel makes a tool name readable: "search_workspace" → "Search workspace".
func toolLabel(name string) string {
	if name == "" {
		return ""
	}
	s := strings.ReplaceAll(name, "_", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// argumentsPreviewBytes is how much of a tool call's arguments a transcript renders: a rewrite's
// whole document loads only when asked for, so a page's editor stays near the page's own size.
const argumentsPreviewBytes = 2000

// argumentsPreview is the opening of s (at most argumentsPreviewBytes, cut at a character
// boundary) and how many characters it leaves out.
func argumentsPreview(s string) (string, int) {
	if len(s) <= argumentsPreviewBytes {
		return s, 0
	}
	cut := argumentsPreviewBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], utf8.RuneCountInString(s[cut:])
}

func prettyJSON(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return s
	}
	return string(b)
}

// busy reports whether any message of the list is still being generated.
func busy(msgs []db.Message) bool {
	for _, m := range msgs {
		if m.Status == db.StatusPending || m.Status == db.StatusStreaming {
			return true
		}
	}
	return false
}

// newIdempotencyKey is a random key for one composer submission (16 bytes, base64url).
func newIdempotencyKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// agentIDs lists the distinct agent ids of the messages (for one AgentsByID query).
func agentIDs(msgs []db.Message, extra ...int64) []int64 {
	seen := map[int64]bool{}
	var ids []int64
	for _, id := range extra {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, m := range msgs {
		if m.AgentID != nil && !seen[*m.AgentID] {
			seen[*m.AgentID] = true
			ids = append(ids, *m.AgentID)
		}
	}
	return ids
}
