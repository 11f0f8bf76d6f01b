package imports

import (
	"encoding/json"
	"strings"
	"time"

	"parley/db"
)

// LibreChat's conversation export (a conversation's ⋯ → Export → JSON) is one object
// {conversationId, title, endpoint, exportAt, branches, recursive, messages}. With recursive set the
// messages nest through "children"; otherwise they are a flat list linked by parentMessageId (the
// first message's parent is the zero UUID). A message is {messageId, parentMessageId, sender, text,
// isCreatedByUser, model, error, createdAt, content, files}; an agent's answer keeps its parts in
// content ({type: text|think|tool_call|image_file|image_url, …}).

type libreChatConversation struct {
	ConversationID string             `json:"conversationId"`
	Title          string             `json:"title"`
	Endpoint       string             `json:"endpoint"`
	Messages       []libreChatMessage `json:"messages"`
}

type libreChatMessage struct {
	MessageID       string             `json:"messageId"`
	ParentMessageID string             `json:"parentMessageId"`
	Sender          string             `json:"sender"`
	Text            string             `json:"text"`
	IsCreatedByUser bool               `json:"isCreatedByUser"`
	Model           *string            `json:"model"`
	Error           bool               `json:"error"`
	CreatedAt       time.Time          `json:"createdAt"`
	Content         []libreChatPart    `json:"content"`
	Files           []libreChatFile    `json:"files"`
	Children        []libreChatMessage `json:"children"`
}

type libreChatPart struct {
	Type     string          `json:"type"`
	Text     json.RawMessage `json:"text"`
	Think    string          `json:"think"`
	ToolCall *struct {
		ID     string          `json:"id"`
		Name   string          `json:"name"`
		Args   json.RawMessage `json:"args"`
		Output string          `json:"output"`
	} `json:"tool_call"`
	ImageURL json.RawMessage `json:"image_url"`
}

type libreChatFile struct {
	FileID   string `json:"file_id"`
	Filename string `json:"filename"`
	Type     string `json:"type"`
}

// libreChatRoot is the parentMessageId of a conversation's first message.
const libreChatRoot = "00000000-0000-0000-0000-000000000000"

func convertLibreChat(raw json.RawMessage) (db.ImportedExchange, error) {
	var c libreChatConversation
	var x db.ImportedExchange
	if err := json.Unmarshal(raw, &c); err != nil {
		return x, errorf("its fields have unexpected types (%s)", jsonReason(err))
	}
	x.Key, x.Title = c.ConversationID, c.Title
	t := newTree()
	var latest time.Time
	var add func(m libreChatMessage, parent string) error
	add = func(m libreChatMessage, parent string) error {
		if m.ParentMessageID != "" && m.ParentMessageID != libreChatRoot {
			parent = m.ParentMessageID
		}
		n := &node{id: m.MessageID, parent: parent, created: m.CreatedAt.UTC(), failed: m.Error}
		if m.Model != nil {
			n.model = *m.Model
		}
		n.items = libreChatItems(m)
		if err := t.add(n); err != nil {
			return err
		}
		if !m.CreatedAt.Before(latest) {
			latest, t.current = m.CreatedAt, m.MessageID
		}
		for _, child := range m.Children {
			if err := add(child, m.MessageID); err != nil {
				return err
			}
		}
		return nil
	}
	for _, m := range c.Messages {
		if err := add(m, ""); err != nil {
			return x, err
		}
	}
	if len(t.order) > 0 {
		x.CreatedAt = t.nodes[t.order[0]].created
		x.UpdatedAt = latest.UTC()
	}
	if err := t.link(); err != nil {
		return x, err
	}
	t.build(&x, LibreChat)
	return x, nil
}

// libreChatItems maps one LibreChat message: a user's text (with a placeholder per attached file),
// an answer's text, or an agent answer's parts in order (think → reasoning, tool_call → a call and
// its output, images → placeholders).
func libreChatItems(m libreChatMessage) []item {
	if m.IsCreatedByUser {
		text := m.Text
		if text == "" {
			text = libreChatPartsText(m.Content)
		}
		for _, f := range m.Files {
			text += "\n\n*[file attached: " + f.Filename + " — not imported]*"
		}
		return []item{{kind: itemUser, text: strings.TrimSpace(text)}}
	}
	if len(m.Content) == 0 {
		return []item{{kind: itemText, text: m.Text}}
	}
	var out []item
	for _, p := range m.Content {
		switch p.Type {
		case "text":
			out = append(out, item{kind: itemText, text: libreChatText(p.Text)})
		case "think":
			out = append(out, item{kind: itemReasoning, text: p.Think})
		case "tool_call":
			if p.ToolCall == nil {
				continue
			}
			args := string(p.ToolCall.Args)
			var s string
			if json.Unmarshal(p.ToolCall.Args, &s) == nil {
				args = s
			}
			out = append(out, item{kind: itemToolCall, toolName: p.ToolCall.Name, toolID: p.ToolCall.ID, text: args},
				item{kind: itemToolOutput, toolName: p.ToolCall.Name, toolID: p.ToolCall.ID, result: p.ToolCall.Output})
		default:
			out = append(out, item{kind: itemText, text: "*[" + strings.ReplaceAll(p.Type, "_", " ") + " — not imported]*"})
		}
	}
	return out
}

// libreChatText reads a text part's text: a string, or {value} in assistants' parts.
func libreChatText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var v struct {
		Value string `json:"value"`
	}
	_ = json.Unmarshal(raw, &v)
	return v.Value
}

func libreChatPartsText(parts []libreChatPart) string {
	var out []string
	for _, p := range parts {
		if p.Type == "text" {
			out = append(out, libreChatText(p.Text))
		}
	}
	return strings.Join(out, "\n\n")
}
