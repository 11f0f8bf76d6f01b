package imports

import (
	"cmp"
	"encoding/json"
	"html"
	"regexp"
	"slices"
	"strings"
	"time"

	"parley/db"
)

// Open WebUI's export (Settings → Chats → Export chats, or a chat's ⋯ → Download → Export chat
// (.json)) is a list of chat rows {id, title, chat, created_at, updated_at (seconds)}, whose chat
// holds history.messages (id → {id, parentId, childrenIds, role, content, model, timestamp, files})
// and history.currentId, the message shown last.

type openWebUIChat struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	CreatedAt *float64 `json:"created_at"`
	UpdatedAt *float64 `json:"updated_at"`
	Chat      struct {
		Title   string `json:"title"`
		History struct {
			Messages  map[string]openWebUIMessage `json:"messages"`
			CurrentID string                      `json:"currentId"`
		} `json:"history"`
		// Messages is the branch on screen as a list; older exports have only this.
		Messages  []openWebUIMessage `json:"messages"`
		Models    []string           `json:"models"`
		Timestamp *float64           `json:"timestamp"`
	} `json:"chat"`
}

type openWebUIMessage struct {
	ID          string   `json:"id"`
	ParentID    *string  `json:"parentId"`
	ChildrenIDs []string `json:"childrenIds"`
	Role        string   `json:"role"`
	Content     string   `json:"content"`
	Model       string   `json:"model"`
	Timestamp   *float64 `json:"timestamp"`
	Files       []struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URL  string `json:"url"`
	} `json:"files"`
	Error json.RawMessage `json:"error"`
}

func convertOpenWebUI(raw json.RawMessage) (db.ImportedExchange, error) {
	var c openWebUIChat
	var x db.ImportedExchange
	if err := json.Unmarshal(raw, &c); err != nil {
		return x, errorf("its fields have unexpected types (%s)", jsonReason(err))
	}
	x.Key, x.Title = c.ID, c.Title
	if x.Title == "" {
		x.Title = c.Chat.Title
	}
	x.CreatedAt, x.UpdatedAt = openWebUITime(c.CreatedAt), openWebUITime(c.UpdatedAt)
	if x.CreatedAt.IsZero() {
		x.CreatedAt = openWebUITime(c.Chat.Timestamp)
	}
	if len(c.Chat.Models) > 0 {
		x.Model = c.Chat.Models[0]
	}
	msgs := c.Chat.History.Messages
	current := c.Chat.History.CurrentID
	if len(msgs) == 0 && len(c.Chat.Messages) > 0 { // no tree: the list is one line
		msgs = map[string]openWebUIMessage{}
		var prev *string
		for _, m := range c.Chat.Messages {
			if m.ParentID == nil {
				m.ParentID = prev
			}
			msgs[m.ID] = m
			id := m.ID
			prev, current = &id, id
		}
	}
	t := newTree()
	// history.messages is an object (its order is lost): add parents first, following childrenIds.
	var add func(id string, depth int) error
	add = func(id string, depth int) error {
		if depth > len(msgs) {
			return errorf("message %s is its own ancestor (the tree has a cycle)", id)
		}
		m := msgs[id]
		n := &node{id: id, model: m.Model, created: openWebUITime(m.Timestamp)}
		if m.ParentID != nil {
			n.parent = *m.ParentID
		}
		n.failed = len(m.Error) > 0 && string(m.Error) != "null" && string(m.Error) != "false"
		n.items = openWebUIItems(m)
		if n.items == nil {
			return errorf("message %s has the role %q (expected user, assistant or system)", id, m.Role)
		}
		if err := t.add(n); err != nil {
			return err
		}
		for _, child := range m.ChildrenIDs {
			cm, ok := msgs[child]
			if !ok {
				return errorf("message %s lists child %s, which is not in the export", id, child)
			}
			if cm.ParentID == nil || *cm.ParentID != id {
				return errorf("message %s lists child %s, whose parent is another message", id, child)
			}
			t.children[id] = append(t.children[id], child)
			if err := add(child, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	var roots []string
	for id, m := range msgs {
		if m.ID != "" && m.ID != id {
			return x, errorf("history key %s holds message %s", id, m.ID)
		}
		if m.ParentID == nil || *m.ParentID == "" {
			roots = append(roots, id)
		}
	}
	sortByTime(roots, func(id string) float64 { return deref(msgs[id].Timestamp) })
	for _, r := range roots {
		if err := add(r, 0); err != nil {
			return x, err
		}
	}
	for id, m := range msgs {
		if _, ok := t.nodes[id]; ok {
			continue
		}
		if m.ParentID != nil {
			if _, known := msgs[*m.ParentID]; !known {
				return x, errorf("message %s has parent %s, which is not in the export", id, *m.ParentID)
			}
		}
		if len(roots) == 0 {
			return x, errorf("no message is the first one (every message has a parent, so the tree has a cycle)")
		}
		// A child its parent does not list: still a version of it.
		if err := add(id, 0); err != nil {
			return x, err
		}
	}
	if err := t.link(); err != nil {
		return x, err
	}
	t.current = current
	t.build(&x, OpenWebUI)
	return x, nil
}

var (
	// Open WebUI writes reasoning and tool calls into the answer as <details> blocks.
	owuiDetails = regexp.MustCompile(`(?s)<details\s+type="(reasoning|tool_calls|code_interpreter)"([^>]*)>(.*?)</details>`)
	owuiAttr    = regexp.MustCompile(`(\w+)="([^"]*)"`)
	owuiSummary = regexp.MustCompile(`(?s)<summary>.*?</summary>`)
)

// openWebUIItems maps one Open WebUI message: a user's text with a placeholder per attached file,
// an assistant's text with its <details type="reasoning"> and <details type="tool_calls"> blocks as
// reasoning and tool items, a system message as system text; nil for an unknown role.
func openWebUIItems(m openWebUIMessage) []item {
	switch m.Role {
	case "user":
		text := m.Content
		for _, f := range m.Files {
			name := f.Name
			if name == "" && !strings.HasPrefix(f.URL, "data:") {
				name = f.URL
			}
			kind := f.Type
			if kind == "" {
				kind = "file"
			}
			text += "\n\n*[" + kind + " attached: " + strings.TrimSpace(name) + " — not imported]*"
		}
		return []item{{kind: itemUser, text: strings.TrimSpace(text)}}
	case "system":
		return []item{{kind: itemSystem, text: m.Content}}
	case "assistant":
		out := []item{}
		rest := m.Content
		for _, loc := range owuiDetails.FindAllStringSubmatchIndex(m.Content, -1) {
			kind, attrs, body := m.Content[loc[2]:loc[3]], m.Content[loc[4]:loc[5]], m.Content[loc[6]:loc[7]]
			a := map[string]string{}
			for _, kv := range owuiAttr.FindAllStringSubmatch(attrs, -1) {
				a[kv[1]] = html.UnescapeString(kv[2])
			}
			body = strings.TrimSpace(owuiSummary.ReplaceAllString(body, ""))
			switch kind {
			case "reasoning":
				out = append(out, item{kind: itemReasoning, text: quoteless(body)})
			default:
				name := a["name"]
				if name == "" {
					name = kind
				}
				out = append(out, item{kind: itemToolCall, toolName: name, toolID: a["id"], text: unquoteJSON(a["arguments"])},
					item{kind: itemToolOutput, toolName: name, toolID: a["id"], result: unquoteJSON(a["result"])})
			}
		}
		rest = strings.TrimSpace(owuiDetails.ReplaceAllString(rest, ""))
		return append(out, item{kind: itemText, text: rest})
	}
	return nil
}

// quoteless removes the "> " Open WebUI puts before each reasoning line.
func quoteless(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(strings.TrimPrefix(l, ">"), " ")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// unquoteJSON undoes the JSON string encoding Open WebUI gives tool arguments and results.
func unquoteJSON(s string) string {
	var out string
	if json.Unmarshal([]byte(s), &out) == nil {
		return out
	}
	return s
}

// openWebUITime reads Open WebUI's times: seconds, or milliseconds in newer chat timestamps.
func openWebUITime(v *float64) time.Time {
	if v != nil && *v > 1e11 {
		s := *v / 1000
		return unixTime(&s)
	}
	return unixTime(v)
}

func deref(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}

// sortByTime orders ids by the time key gives them, then by id.
func sortByTime(ids []string, key func(string) float64) {
	slices.SortFunc(ids, func(a, b string) int { return cmp.Or(cmp.Compare(key(a), key(b)), cmp.Compare(a, b)) })
}
