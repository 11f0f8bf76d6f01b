package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"parley/db"
)

// exportedConversation is the JSON export of one conversation: the exchange and every message
// (all five kinds, every version, metadata and feedback).
type exportedConversation struct {
	ID        int64                `json:"id"`
	Title     string               `json:"title"`
	Agent     *exportedAgent       `json:"agent"`
	CreatedAt time.Time            `json:"created_at"`
	UpdatedAt time.Time            `json:"updated_at"`
	Exported  time.Time            `json:"exported_at"`
	Messages  []db.ExportedMessage `json:"messages"`
}

type exportedAgent struct {
	ID         int64  `json:"id"`
	Identifier string `json:"identifier"`
	Name       string `json:"name"`
}

// exportJSON downloads the conversation as JSON.
func (a *app) exportJSON(c echo.Context) error {
	conv, _, err := a.exportOf(c)
	if err != nil {
		return err
	}
	body, err := json.MarshalIndent(conv, "", "  ")
	if err != nil {
		return err
	}
	attach(c, conv.ID, "json")
	return c.Blob(http.StatusOK, "application/json; charset=utf-8", body)
}

// exportMarkdown downloads the branch on screen as Markdown (Copy all copies the same text).
func (a *app) exportMarkdown(c echo.Context) error {
	conv, agents, err := a.exportOf(c)
	if err != nil {
		return err
	}
	attach(c, conv.ID, "md")
	return c.Blob(http.StatusOK, "text/markdown; charset=utf-8", []byte(conversationMarkdown(conv, agents)))
}

// exportOf reads the viewer's conversation :id with all its messages and their agents.
func (a *app) exportOf(c echo.Context) (exportedConversation, map[int64]db.Agent, error) {
	ctx := c.Request().Context()
	e, err := a.ownExchange(c)
	if err != nil {
		return exportedConversation{}, nil, err
	}
	msgs, err := a.store.ExportMessages(ctx, e.ID)
	if err != nil {
		return exportedConversation{}, nil, err
	}
	ids := []int64{}
	if e.AgentID != nil {
		ids = append(ids, *e.AgentID)
	}
	for _, m := range msgs {
		if m.AgentID != nil {
			ids = append(ids, *m.AgentID)
		}
	}
	agents, err := a.store.AgentsByID(ctx, ids)
	if err != nil {
		return exportedConversation{}, nil, err
	}
	conv := exportedConversation{ID: e.ID, Title: displayTitle(e.Title), CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
		Exported: time.Now().UTC(), Messages: msgs}
	if e.AgentID != nil {
		if ag, ok := agents[*e.AgentID]; ok {
			conv.Agent = &exportedAgent{ID: ag.ID, Identifier: ag.Identifier, Name: ag.Name}
		}
	}
	return conv, agents, nil
}

func attach(c echo.Context, id int64, ext string) {
	c.Response().Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="parley-conversation-%d.%s"`, id, ext))
}

// conversationMarkdown writes the branch on screen as Markdown: a heading per message with its
// speaker and UTC time, tool calls and results as fenced JSON, reasoning quoted, feedback noted.
func conversationMarkdown(conv exportedConversation, agents map[int64]db.Agent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", conv.Title)
	fmt.Fprintf(&b, "_Exported from Parley on %s._\n\n", conv.Exported.Format("2006-01-02 15:04 UTC"))
	for _, m := range conv.Messages {
		if !m.OnBranch {
			continue
		}
		at := m.CreatedAt.UTC().Format("2006-01-02 15:04")
		switch m.Role {
		case db.RoleUser:
			fmt.Fprintf(&b, "## You · %s\n\n%s\n\n", at, m.Content)
		case db.RoleAssistant:
			name := "Assistant"
			if m.AgentID != nil && agents[*m.AgentID].Name != "" {
				name = agents[*m.AgentID].Name
			}
			fmt.Fprintf(&b, "## %s · %s\n\n%s\n\n", name, at, m.Content)
			if m.Status != db.StatusComplete {
				fmt.Fprintf(&b, "_(%s)_\n\n", m.Status)
			}
			if m.Feedback != nil {
				fmt.Fprintf(&b, "_Feedback: %s", *m.Feedback)
				if m.FeedbackReason != "" {
					fmt.Fprintf(&b, " — %s", plainMarkdown(m.FeedbackReason))
				}
				b.WriteString("_\n\n")
			}
		case db.RoleReasoning:
			b.WriteString("> **Reasoning**\n>\n")
			for _, line := range strings.Split(m.Content, "\n") {
				fmt.Fprintf(&b, "> %s\n", line)
			}
			b.WriteString("\n")
		case db.RoleFunctionCall:
			fmt.Fprintf(&b, "**Tool call: `%s`**\n\n%s\n\n", m.ToolName, fence("json", m.ToolArguments))
		case db.RoleFunctionCallOutput:
			ms := 0
			if m.DurationMS != nil {
				ms = *m.DurationMS
			}
			fmt.Fprintf(&b, "**Result of `%s`** (%d ms)\n\n%s\n\n", m.ToolName, ms, fence("json", m.ToolResult))
		}
	}
	return b.String()
}

// markdownEscaper escapes the characters that make Markdown syntax (and HTML) in a line of text.
var markdownEscaper = func() *strings.Replacer {
	var pairs []string
	for _, r := range "\\`*_{}[]()#+-.!|~" {
		pairs = append(pairs, string(r), "\\"+string(r))
	}
	return strings.NewReplacer(append(pairs, "&", "&amp;", "<", "&lt;", ">", "&gt;")...)
}()

// plainMarkdown is typed text (a feedback reason) as one line of Markdown that reads as the text:
// white space runs are one space, and Markdown syntax and HTML are escaped.
func plainMarkdown(s string) string {
	return markdownEscaper.Replace(strings.Join(strings.Fields(s), " "))
}

// fence puts text in a fenced code block longer than any backtick run inside it.
func fence(lang, text string) string {
	ticks := "```"
	for strings.Contains(text, ticks) {
		ticks += "`"
	}
	return ticks + lang + "\n" + text + "\n" + ticks
}
