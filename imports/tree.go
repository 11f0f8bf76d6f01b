package imports

import (
	"encoding/json"
	"strings"
	"time"

	"parley/db"
)

// The foreign formats all store a conversation as a tree of messages: each names its parent, and a
// message with several children has several versions (an edited question, a regenerated answer).
// Their messages are finer than Parley's: one answer may be several assistant messages with tool
// calls and tool outputs between them. A tree of nodes is turned into Parley's tree (branches.go)
// turn by turn: a user node starts a turn; every path from it through the nodes that are not user
// messages, down to where the next user message (or the end) comes, is one version of its answer,
// holding that path's reasoning and tool items and its text.

// itemKind is what one piece of a foreign message becomes.
type itemKind int

const (
	itemUser       itemKind = iota // a user message
	itemText                       // text of the answer
	itemReasoning                  // a reasoning item
	itemToolCall                   // a function_call item
	itemToolOutput                 // a function_call_output item
	itemSystem                     // a system prompt or custom instructions, kept in metadata
)

// item is one piece of a node.
type item struct {
	kind                     itemKind
	text                     string
	toolName, toolID, result string
}

// node is one message of a foreign tree.
type node struct {
	id, parent string
	items      []item
	model      string
	created    time.Time
	// failed marks an answer the source stored as an error.
	failed bool
}

// isUser reports whether the node is a user message (starts a turn).
func (n *node) isUser() bool { return len(n.items) > 0 && n.items[0].kind == itemUser }

// tree is a conversation's nodes in file order, with children in the order their versions were
// written (the source's children list, else file order).
type tree struct {
	nodes    map[string]*node
	order    []string
	children map[string][]string
	// current is the node the source showed last (the branch on screen), "" if it has none.
	current string
}

func newTree() *tree {
	return &tree{nodes: map[string]*node{}, children: map[string][]string{}}
}

// add puts a node in the tree; a repeated id is an error.
func (t *tree) add(n *node) error {
	if n.id == "" {
		return errorf("a message has no id")
	}
	if _, dup := t.nodes[n.id]; dup {
		return errorf("message %s appears twice", n.id)
	}
	t.nodes[n.id] = n
	t.order = append(t.order, n.id)
	return nil
}

// link fills children from parents (keeping any order already given) and checks every parent
// exists and the tree has no cycle.
func (t *tree) link() error {
	seen := map[string]map[string]bool{}
	for p, cs := range t.children {
		seen[p] = map[string]bool{}
		for _, c := range cs {
			seen[p][c] = true
		}
	}
	for _, id := range t.order {
		n := t.nodes[id]
		if n.parent == "" {
			continue
		}
		if _, ok := t.nodes[n.parent]; !ok {
			return errorf("message %s has parent %s, which is not in the export", id, n.parent)
		}
		if seen[n.parent] == nil {
			seen[n.parent] = map[string]bool{}
		}
		if !seen[n.parent][id] {
			seen[n.parent][id] = true
			t.children[n.parent] = append(t.children[n.parent], id)
		}
	}
	// Children lists naming unknown nodes, or nodes whose parent is another, are the source's
	// leftovers: keep only true children.
	for p, cs := range t.children {
		kept := cs[:0]
		for _, c := range cs {
			if n, ok := t.nodes[c]; ok && n.parent == p {
				kept = append(kept, c)
			}
		}
		t.children[p] = kept
	}
	// A cycle has no root: walk up at most len steps, stopping at a node already known to reach
	// one (so a long conversation is checked in linear time, not quadratic).
	rooted := make(map[string]bool, len(t.order))
	var path []string
	for _, id := range t.order {
		path = path[:0]
		for at := id; at != "" && !rooted[at]; at = t.nodes[at].parent {
			if len(path) > len(t.order) {
				return errorf("message %s is its own ancestor (the tree has a cycle)", id)
			}
			path = append(path, at)
		}
		for _, at := range path {
			rooted[at] = true
		}
	}
	return nil
}

// build turns the tree into Parley's messages and sets x.Messages and x.Leaf.
func (t *tree) build(x *db.ImportedExchange, source string) {
	b := &builder{t: t, source: source, leafOf: map[string]int{}, userIDs: map[int]string{}}
	for _, id := range t.order {
		switch root := t.nodes[id]; {
		case root.parent != "":
		case root.isUser():
			b.user(root, -1)
		default:
			b.respond(-1, root, []*node{root})
		}
	}
	x.Messages = b.msgs
	x.Leaf = -1
	if b.branched() {
		x.Leaf = b.lastAnswer
		if i, ok := b.leafOf[t.current]; ok {
			x.Leaf = i
		}
	}
	if x.Model == "" {
		x.Model = b.model
	}
}

type builder struct {
	t      *tree
	source string
	msgs   []db.ImportedMessage
	// leafOf maps a node to the first answer emitted on a path through it.
	leafOf     map[string]int
	lastAnswer int
	model      string
	// system is system text not yet attached to a message.
	system []string
	// userIDs maps an emitted user message to its node.
	userIDs map[int]string
}

// user emits user node u after answer parent (-1: none) and the answers below it.
func (b *builder) user(u *node, parent int) {
	ui := b.emit(db.ImportedMessage{Parent: parent, Role: db.RoleUser, Content: u.items[0].text, CreatedAt: u.created})
	b.userIDs[ui] = u.id
	for _, it := range u.items[1:] {
		if it.kind == itemSystem {
			b.system = append(b.system, it.text)
		}
	}
	b.respond(ui, u, nil)
}

// respond walks the answer side below n: path holds the nodes after the turn's user message ui
// (-1 before the first user message) down to n.
func (b *builder) respond(ui int, n *node, path []*node) {
	var answerSide, users []*node
	for _, c := range b.t.children[n.id] {
		if cn := b.t.nodes[c]; cn.isUser() {
			users = append(users, cn)
		} else {
			answerSide = append(answerSide, cn)
		}
	}
	if n.isUser() && len(path) == 0 && len(answerSide) == 0 && len(users) == 0 {
		b.answer(ui, path, n) // a question left unanswered
		return
	}
	if len(users) > 0 || len(answerSide) == 0 {
		parent := -1
		if ui >= 0 || hasContent(path) {
			parent = b.answer(ui, path, n)
		} else {
			b.keepSystem(path)
		}
		for _, u := range users {
			b.user(u, parent)
		}
	}
	for _, c := range answerSide {
		b.respond(ui, c, append(path[:len(path):len(path)], c))
	}
}

// hasContent reports whether path holds anything but system text.
func hasContent(path []*node) bool {
	for _, n := range path {
		for _, it := range n.items {
			if it.kind != itemSystem {
				return true
			}
		}
	}
	return false
}

func (b *builder) keepSystem(path []*node) {
	for _, n := range path {
		for _, it := range n.items {
			if it.kind == itemSystem && strings.TrimSpace(it.text) != "" {
				b.system = append(b.system, it.text)
			}
		}
	}
}

// answer emits the answer of user message ui made of path (its items, then its text) and returns
// its index. end is the node the path ends at.
func (b *builder) answer(ui int, path []*node, end *node) int {
	b.keepSystem(path)
	var texts []string
	var items []db.ImportedMessage
	created, model, failed := end.created, "", false
	for _, n := range path {
		if n.model != "" {
			model = n.model
		}
		failed = failed || n.failed
		for _, it := range n.items {
			switch it.kind {
			case itemText:
				if strings.TrimSpace(it.text) != "" {
					texts = append(texts, it.text)
				}
			case itemReasoning:
				items = append(items, db.ImportedMessage{Role: db.RoleReasoning, Content: it.text, CreatedAt: n.created})
			case itemToolCall:
				items = append(items, db.ImportedMessage{Role: db.RoleFunctionCall, ToolName: it.toolName,
					ToolCallID: it.toolID, ToolArguments: it.text, CreatedAt: n.created})
			case itemToolOutput:
				items = append(items, db.ImportedMessage{Role: db.RoleFunctionCallOutput, ToolName: it.toolName,
					ToolCallID: it.toolID, ToolResult: it.result, CreatedAt: n.created})
			}
		}
	}
	if len(path) == 0 && ui >= 0 {
		texts = append(texts, "*(This question has no answer in the imported conversation.)*")
		created = b.msgs[ui].CreatedAt
	}
	ai := len(b.msgs) + len(items)
	for _, it := range items {
		it.Parent = ai
		b.emit(it)
	}
	meta := map[string]any{"imported_from": b.source}
	if model != "" {
		meta["model"] = model
		b.model = model
	}
	status := ""
	if failed {
		status = db.StatusFailed
		meta["error"] = "The answer failed in " + FormatName(b.source) + "."
	}
	b.emit(db.ImportedMessage{Parent: ui, Role: db.RoleAssistant, Content: strings.Join(texts, "\n\n"), Status: status,
		Metadata: mustJSON(meta), CreatedAt: created})
	for _, n := range path {
		if _, ok := b.leafOf[n.id]; !ok {
			b.leafOf[n.id] = ai
		}
	}
	if ui >= 0 {
		if uid := b.userIDs[ui]; uid != "" {
			if _, ok := b.leafOf[uid]; !ok {
				b.leafOf[uid] = ai
			}
		}
	}
	b.lastAnswer = ai
	return ai
}

// emit appends m (with pending system text in its metadata) and returns its index.
func (b *builder) emit(m db.ImportedMessage) int {
	if len(b.system) > 0 && (m.Role == db.RoleUser || m.Role == db.RoleAssistant) {
		meta := map[string]any{}
		if len(m.Metadata) > 0 {
			_ = json.Unmarshal(m.Metadata, &meta)
		}
		meta["system_prompt"] = strings.Join(b.system, "\n\n")
		m.Metadata = mustJSON(meta)
		b.system = nil
	}
	if m.Role == db.RoleUser && len(m.Metadata) == 0 {
		m.Metadata = mustJSON(map[string]any{"imported_from": b.source})
	}
	m.Content = clean(m.Content)
	m.ToolArguments, m.ToolResult = clean(m.ToolArguments), clean(m.ToolResult)
	b.msgs = append(b.msgs, m)
	return len(b.msgs) - 1
}

// branched reports whether a user message or an answer has another version.
func (b *builder) branched() bool {
	type key struct {
		parent int
		role   string
	}
	n := map[key]int{}
	for _, m := range b.msgs {
		if m.Role == db.RoleUser || m.Role == db.RoleAssistant {
			k := key{m.Parent, m.Role}
			n[k]++
			if n[k] > 1 {
				return true
			}
		}
	}
	return false
}

// clean makes text storable: PostgreSQL text holds no NUL.
func clean(s string) string { return strings.ReplaceAll(s, "\x00", "\uFFFD") }

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of strings are marshalled here
	}
	return b
}
