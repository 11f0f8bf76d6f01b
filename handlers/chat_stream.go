package handlers

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/views"
)

// heartbeatEvery is how often an idle stream sends an SSE comment, so proxies keep it open.
const heartbeatEvery = 15 * time.Second

// streamCoalesce is the shortest time between two renders of one stream (at most ~10 per second).
const streamCoalesce = 100 * time.Millisecond

// streamEvents is the conversation's SSE stream. On (re)connect it sends a snapshot of every
// message, so a reload or a reconnect (with or without Last-Event-ID) shows the current state and
// never duplicates text. Then each change is sent as an htmx partial that replaces the changed
// message (whole text re-rendered, not appended), under Gnosari's event names. A message the stream
// has not shown yet (another tab's query, a tool call) makes it send the whole list again.
func (a *app) streamEvents(c echo.Context) error {
	ctx := c.Request().Context()
	u := viewer(c)
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if _, err := a.store.UserExchange(ctx, u.ID, id); err != nil {
		return err
	}
	sub := a.notifier.Subscribe(id) // before the snapshot, so no change falls between the two
	defer sub.Close()

	w := c.Response()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{})
	s := &sseWriter{w: w, rc: rc}

	known := map[int64]bool{}   // messages this stream has shown
	hasText := map[int64]bool{} // messages whose text this stream has shown
	if err := a.sendSnapshot(ctx, s, c, id, known, "snapshot"); err != nil {
		return nil // the client went away or the write failed: nothing more to say
	}
	heartbeat := time.NewTicker(heartbeatEvery)
	defer heartbeat.Stop()
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-heartbeat.C:
			if s.comment("ping") != nil {
				return nil
			}
		case <-sub.Ready():
			ids := sub.Take()
			for {
				msgs, err := a.store.ExchangeMessages(ctx, id)
				if err != nil {
					return nil
				}
				// Intermediate text waits for the coalescing window; a new message or a finished
				// one goes out at once, so the end of an answer is never held back.
				wait := streamCoalesce - time.Since(last)
				if wait <= 0 || urgent(ids, msgs, known, hasText) {
					last = time.Now()
					if err := a.sendChanges(ctx, s, c, id, ids, msgs, known); err != nil {
						return nil
					}
					for _, m := range msgs {
						hasText[m.ID] = m.Content != ""
					}
					break
				}
				select {
				case <-time.After(wait):
				case <-ctx.Done():
					return nil
				}
				ids = appendNew(ids, sub.Take())
			}
		}
	}
}

// urgent reports whether a change must be sent without waiting: a message the stream has not
// shown yet, the first text of an answer, or a message that is no longer being generated.
func urgent(ids []int64, msgs []db.Message, known, hasText map[int64]bool) bool {
	for _, id := range ids {
		if !known[id] {
			return true
		}
	}
	for _, m := range msgs {
		for _, id := range ids {
			if m.ID == id && (m.Status != db.StatusPending && m.Status != db.StatusStreaming || m.Content != "" && !hasText[id]) {
				return true
			}
		}
	}
	return false
}

// appendNew appends the ids of more that a does not hold yet.
func appendNew(a, more []int64) []int64 {
	for _, id := range more {
		if !slices.Contains(a, id) {
			a = append(a, id)
		}
	}
	return a
}

// sendChanges renders the changed messages: one partial each, or the whole list when one is new.
func (a *app) sendChanges(ctx context.Context, s *sseWriter, c echo.Context, exchangeID int64, ids []int64, msgs []db.Message, known map[int64]bool) error {
	index := map[int64]int{}
	for i, m := range msgs {
		index[m.ID] = i
	}
	agents, err := a.store.AgentsByID(ctx, agentIDs(msgs))
	if err != nil {
		return err
	}
	for _, id := range ids {
		i, ok := index[id]
		if !ok {
			continue
		}
		name := eventName(msgs[i])
		if !known[id] {
			return a.sendSnapshot(ctx, s, c, exchangeID, known, name)
		}
		html, err := renderOOB(ctx, messageViewAt(msgs, i, agents), exchangeID, busy(msgs))
		if err != nil {
			return err
		}
		if err := s.event(name, html); err != nil {
			return err
		}
	}
	return nil
}

// sendSnapshot sends every message as one partial replacing the list's contents.
func (a *app) sendSnapshot(ctx context.Context, s *sseWriter, c echo.Context, exchangeID int64, known map[int64]bool, name string) error {
	pane, err := a.chatPane(ctx, c, exchangeID)
	if err != nil {
		return err
	}
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	buf.WriteString(`<div id="messages" hx-swap-oob="innerHTML">`)
	if err := views.MessageList(pane).Render(ctx, buf); err != nil {
		return err
	}
	buf.WriteString(`</div>`)
	if err := views.ChatStatus(pane.Busy, true).Render(ctx, buf); err != nil {
		return err
	}
	for _, m := range pane.Messages {
		known[m.ID] = true
	}
	return s.event(name, buf.String())
}

// renderOOB renders one message as an out-of-band replacement, plus the busy flag.
func renderOOB(ctx context.Context, m views.MessageView, exchangeID int64, isBusy bool) (string, error) {
	var buf bytes.Buffer
	m.OOB = true
	if err := views.MessageItem(m, exchangeID).Render(ctx, &buf); err != nil {
		return "", err
	}
	if err := views.ChatStatus(isBusy, true).Render(ctx, &buf); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// eventName is Gnosari's name for what a message's state says happened.
func eventName(m db.Message) string {
	switch m.Role {
	case db.RoleReasoning, db.RoleUser:
		return "agent_thinking"
	case db.RoleFunctionCall:
		if m.Status == db.StatusStreaming {
			return "tool_call_started"
		}
		return "tool_call_progress"
	case db.RoleFunctionCallOutput:
		return "tool_call_completed"
	}
	switch m.Status {
	case db.StatusPending:
		return "agent_thinking"
	case db.StatusStreaming:
		if m.Content == "" {
			return "agent_thinking"
		}
		return "text_delta"
	case db.StatusFailed:
		return "error"
	}
	return "agent_completed"
}

// sseWriter writes Server-Sent Events: every line of data gets its own "data:" prefix, and each
// event an increasing id.
type sseWriter struct {
	w  *echo.Response
	rc *http.ResponseController
	id int64
}

func (s *sseWriter) event(name, data string) error {
	s.id++
	var b strings.Builder
	fmt.Fprintf(&b, "id: %d-%d\nevent: %s\n", time.Now().UnixMilli(), s.id, name)
	for _, line := range strings.Split(data, "\n") {
		b.WriteString("data: ")
		b.WriteString(strings.TrimSuffix(line, "\r"))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	if _, err := s.w.Write([]byte(b.String())); err != nil {
		return err
	}
	return s.rc.Flush()
}

func (s *sseWriter) comment(text string) error {
	if _, err := s.w.Write([]byte(": " + text + "\n\n")); err != nil {
		return err
	}
	return s.rc.Flush()
}
