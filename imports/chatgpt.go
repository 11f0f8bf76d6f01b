package imports

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"parley/db"
)

// ChatGPT's data export (Settings → Data controls → Export data) is a zip holding
// conversations.json: a list of conversations, each with a "mapping" from node id to
// {id, message, parent, children} and "current_node", the node shown last. testdata/README.md says
// where the shape is described.

type chatGPTConversation struct {
	ID             string                 `json:"id"`
	ConversationID string                 `json:"conversation_id"`
	Title          *string                `json:"title"`
	CreateTime     *float64               `json:"create_time"`
	UpdateTime     *float64               `json:"update_time"`
	Mapping        map[string]chatGPTNode `json:"mapping"`
	CurrentNode    string                 `json:"current_node"`
	DefaultModel   string                 `json:"default_model_slug"`
}

type chatGPTNode struct {
	ID       string          `json:"id"`
	Message  *chatGPTMessage `json:"message"`
	Parent   *string         `json:"parent"`
	Children []string        `json:"children"`
}

type chatGPTMessage struct {
	ID     string `json:"id"`
	Author struct {
		Role string  `json:"role"`
		Name *string `json:"name"`
	} `json:"author"`
	CreateTime *float64       `json:"create_time"`
	Content    chatGPTContent `json:"content"`
	Status     string         `json:"status"`
	Recipient  string         `json:"recipient"`
	Metadata   struct {
		ModelSlug string `json:"model_slug"`
		Hidden    bool   `json:"is_visually_hidden_from_conversation"`
	} `json:"metadata"`
}

type chatGPTContent struct {
	ContentType string            `json:"content_type"`
	Parts       []json.RawMessage `json:"parts"`
	// code, execution_output, system_error, tether_quote, reasoning_recap
	Text     string `json:"text"`
	Language string `json:"language"`
	Result   string `json:"result"`
	Content  string `json:"content"`
	Name     string `json:"name"`
	URL      string `json:"url"`
	Title    string `json:"title"`
	// user_editable_context (custom instructions)
	UserProfile      string `json:"user_profile"`
	UserInstructions string `json:"user_instructions"`
	// thoughts
	Thoughts []struct {
		Summary string `json:"summary"`
		Content string `json:"content"`
	} `json:"thoughts"`
}

func convertChatGPT(raw json.RawMessage) (db.ImportedExchange, error) {
	var c chatGPTConversation
	var x db.ImportedExchange
	if err := json.Unmarshal(raw, &c); err != nil {
		return x, errorf("its fields have unexpected types (%s)", jsonReason(err))
	}
	if c.Title != nil {
		x.Title = *c.Title
	}
	x.Key = c.ConversationID
	if x.Key == "" {
		x.Key = c.ID
	}
	x.CreatedAt, x.UpdatedAt = unixTime(c.CreateTime), unixTime(c.UpdateTime)
	if x.UpdatedAt.IsZero() {
		x.UpdatedAt = x.CreatedAt
	}
	x.Model = c.DefaultModel
	t := newTree()
	// The mapping is a JSON object, so its order is lost; children lists give version order, and
	// nodes are added parents first from the roots.
	var roots []string
	for id, n := range c.Mapping {
		if n.ID != "" && n.ID != id {
			return x, errorf("mapping key %s holds node %s", id, n.ID)
		}
		if n.Parent == nil || *n.Parent == "" {
			roots = append(roots, id)
		} else if _, ok := c.Mapping[*n.Parent]; !ok {
			return x, errorf("node %s has parent %s, which is not in the mapping", id, *n.Parent)
		}
	}
	if len(c.Mapping) > 0 && len(roots) == 0 {
		return x, errorf("its mapping has no root node (every node has a parent, so the tree has a cycle)")
	}
	slices.Sort(roots)
	var walk func(id string, depth int) error
	walk = func(id string, depth int) error {
		if depth > len(c.Mapping) {
			return errorf("node %s is its own ancestor (the tree has a cycle)", id)
		}
		n := c.Mapping[id]
		nd := &node{id: id}
		if n.Parent != nil {
			nd.parent = *n.Parent
		}
		if n.Message != nil {
			nd.items, nd.model = chatGPTItems(n.Message), n.Message.Metadata.ModelSlug
			nd.created = unixTime(n.Message.CreateTime)
			nd.failed = n.Message.Content.ContentType == "system_error"
		}
		if nd.created.IsZero() {
			nd.created = x.CreatedAt
		}
		if err := t.add(nd); err != nil {
			return err
		}
		for _, child := range n.Children {
			cn, ok := c.Mapping[child]
			if !ok {
				return errorf("node %s lists child %s, which is not in the mapping", id, child)
			}
			if cn.Parent == nil || *cn.Parent != id {
				return errorf("node %s lists child %s, whose parent is another node", id, child)
			}
			t.children[id] = append(t.children[id], child)
			if err := walk(child, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	for _, r := range roots {
		if err := walk(r, 0); err != nil {
			return x, err
		}
	}
	if len(t.order) != len(c.Mapping) {
		for id, n := range c.Mapping {
			if _, ok := t.nodes[id]; !ok {
				if n.Parent != nil {
					if _, known := c.Mapping[*n.Parent]; !known {
						return x, errorf("node %s has parent %s, which is not in the mapping", id, *n.Parent)
					}
				}
				return x, errorf("node %s is not among its parent's children", id)
			}
		}
	}
	if err := t.link(); err != nil {
		return x, err
	}
	t.current = c.CurrentNode
	t.build(&x, ChatGPT)
	return x, nil
}

// chatGPTItems maps one ChatGPT message onto Parley's kinds: a user's text; an assistant's text to
// everyone (recipient "all") as answer text, to a tool (python, browser, dalle…) as a tool call; a
// tool's message as the call's output; thoughts as reasoning; system messages and custom
// instructions as system text. Parts that are not text (images, audio, files) become a
// placeholder naming what was there.
func chatGPTItems(m *chatGPTMessage) []item {
	text := chatGPTText(m.Content)
	hiddenEmpty := m.Metadata.Hidden && strings.TrimSpace(text) == ""
	switch role := m.Author.Role; {
	case m.Content.ContentType == "user_editable_context":
		return []item{{kind: itemSystem, text: text}}
	case role == "system":
		if strings.TrimSpace(text) == "" {
			return nil
		}
		return []item{{kind: itemSystem, text: text}}
	case role == "user":
		return []item{{kind: itemUser, text: text}}
	case role == "tool":
		name := "tool"
		if m.Author.Name != nil && *m.Author.Name != "" {
			name = *m.Author.Name
		}
		if hiddenEmpty {
			return nil
		}
		return []item{{kind: itemToolOutput, toolName: name, toolID: m.ID, result: text}}
	case m.Content.ContentType == "thoughts" || m.Content.ContentType == "reasoning_recap":
		return []item{{kind: itemReasoning, text: text}}
	case m.Recipient != "" && m.Recipient != "all":
		return []item{{kind: itemToolCall, toolName: m.Recipient, toolID: m.ID, text: text}}
	default:
		if hiddenEmpty {
			return nil
		}
		return []item{{kind: itemText, text: text}}
	}
}

// chatGPTText is a message content's text, with placeholders for parts that are not text.
func chatGPTText(c chatGPTContent) string {
	switch c.ContentType {
	case "text", "multimodal_text", "":
		var out []string
		for _, p := range c.Parts {
			if s := partText(p); s != "" {
				out = append(out, s)
			}
		}
		return strings.Join(out, "\n\n")
	case "code":
		lang := c.Language
		if lang == "unknown" {
			lang = ""
		}
		return "```" + lang + "\n" + c.Text + "\n```"
	case "execution_output", "system_error":
		return c.Text
	case "tether_browsing_display":
		return c.Result
	case "tether_quote":
		return fmt.Sprintf("> %s\n\n— [%s](%s)", c.Text, c.Title, c.URL)
	case "reasoning_recap":
		return c.Content
	case "thoughts":
		var out []string
		for _, t := range c.Thoughts {
			out = append(out, strings.TrimSpace("**"+t.Summary+"**\n\n"+t.Content))
		}
		return strings.Join(out, "\n\n")
	case "user_editable_context":
		return strings.TrimSpace(strings.TrimSpace(c.UserProfile) + "\n\n" + strings.TrimSpace(c.UserInstructions))
	}
	if c.Text != "" {
		return c.Text
	}
	return fmt.Sprintf("*(A %s part was not imported: Parley cannot show it.)*", c.ContentType)
}

// partText is one part of a text or multimodal message: a string as it is, an object (an image,
// an audio clip, a file) as a placeholder, or its transcript when it has one.
func partText(p json.RawMessage) string {
	var s string
	if json.Unmarshal(p, &s) == nil {
		return s
	}
	var obj struct {
		ContentType  string `json:"content_type"`
		AssetPointer string `json:"asset_pointer"`
		Width        int    `json:"width"`
		Height       int    `json:"height"`
		SizeBytes    int64  `json:"size_bytes"`
		Text         string `json:"text"`
		Metadata     struct {
			Dalle *struct {
				Prompt string `json:"prompt"`
			} `json:"dalle"`
		} `json:"metadata"`
	}
	if json.Unmarshal(p, &obj) != nil {
		return "*(A part of this message was not imported: it is neither text nor a known attachment.)*"
	}
	switch obj.ContentType {
	case "audio_transcription":
		return obj.Text
	case "image_asset_pointer":
		desc := "image"
		if obj.Width > 0 && obj.Height > 0 {
			desc = fmt.Sprintf("image, %d×%d", obj.Width, obj.Height)
		}
		if obj.Metadata.Dalle != nil && obj.Metadata.Dalle.Prompt != "" {
			desc += ", made by DALL·E from “" + obj.Metadata.Dalle.Prompt + "”"
		}
		return fmt.Sprintf("*[%s — %s; the file stays in the ChatGPT export, it was not imported]*", desc, obj.AssetPointer)
	case "":
		return "*(A part of this message was not imported: it has no content type.)*"
	}
	return fmt.Sprintf("*[%s — %s; not imported]*", strings.ReplaceAll(obj.ContentType, "_", " "), obj.AssetPointer)
}

// unixTime converts seconds since 1970 (with a fraction) to a UTC time; nil or 0 is the zero time.
func unixTime(s *float64) time.Time {
	if s == nil || *s <= 0 || math.IsInf(*s, 0) || math.IsNaN(*s) {
		return time.Time{}
	}
	sec, frac := math.Modf(*s)
	return time.Unix(int64(sec), int64(frac*1e6)*1e3).UTC()
}
