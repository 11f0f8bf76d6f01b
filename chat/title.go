package chat

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"parley/agents"
	"parley/db"
)

// titleTimeout bounds the model call that improves a title.
const titleTimeout = 20 * time.Second

// titlePrompt asks the model for a conversation title.
const titlePrompt = "You name conversations. Reply with a title of at most six words for the conversation below: " +
	"no quotes, no trailing punctuation, in the language of the question. Reply with the title only."

// maybeImproveTitle asks the model, in the background, for a better title than the one cut from the
// first query, once the first answer is complete (history is what generate read: this turn's
// query is its only user message). It never delays the answer, and a title the person renamed in
// the meantime is kept.
func (g *Generator) maybeImproveTitle(job Job, history []db.Message, answer string) {
	if !g.ImproveTitles || answer == "" {
		return
	}
	var queries []string
	for _, m := range history {
		if m.Role == db.RoleUser {
			queries = append(queries, m.Content)
		}
	}
	if len(queries) != 1 {
		return
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), titleTimeout)
		defer cancel()
		req := agents.Request{System: titlePrompt, Messages: []agents.Message{{Role: agents.RoleUser,
			Content: "Question: " + clip(queries[0], 1000) + "\n\nAnswer: " + clip(answer, 1500)}}}
		result, err := g.Provider.Stream(ctx, req, func(agents.Event) error { return nil })
		if err != nil {
			g.Log.Warn("improving a title", "exchange", job.ExchangeID, "error", err)
			return
		}
		title := cleanTitle(result.Content)
		if title == "" {
			return
		}
		if err := g.Store.ImproveTitle(ctx, job.ExchangeID, TitleFrom(queries[0]), title); err != nil {
			g.Log.Warn("storing an improved title", "exchange", job.ExchangeID, "error", err)
		}
	}()
}

// cleanTitle makes a model's reply a title: its first line, without quotes, markdown emphasis or
// a trailing full stop, cut like a query-made one; "" when nothing usable is left.
func cleanTitle(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	s = strings.TrimPrefix(strings.TrimSpace(s), "Title:")
	s = strings.Trim(strings.TrimSpace(s), "\"'“”‘’*#` ")
	s = strings.TrimRight(s, ".")
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return ""
	}
	return TitleFrom(s)
}

// clip cuts s to at most n bytes at a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
