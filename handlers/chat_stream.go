package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"parley/chat"
	"parley/db"
	"parley/views"
)

// streamCoalesce is the shortest time between two renders of one stream (at most ~10 per second).
// It is the only window a delta waits for on its way to a browser on the generating instance.
const streamCoalesce = 100 * time.Millisecond

// durableEvery is how often a running answer's text is stored (and so reaches streams on other
// instances and a reload); streams on the generating instance do not wait for it.
const durableEvery = 250 * time.Millisecond

// streamEvents is the conversation's SSE stream. On (re)connect it sends a snapshot of every
// message, so a reload or a reconnect (with or without Last-Event-ID) shows the current state and
// never duplicates text. Then each change is sent as an htmx partial that replaces the changed
// message (whole text re-rendered, not appended), under Gnosari's event names; a message the stream
// has not shown yet (another tab's query, a tool call) is inserted in its place.
//
// Changes come two ways: the Notifier's notices of stored changes (from any instance), read back
// from the database; and, for an answer this instance is generating, its live text in memory
// (Generator.Live), which is ahead of the database. Either way one coalescing window applies.
func (a *app) streamEvents(c echo.Context) error {
	ctx := c.Request().Context()
	e, err := a.ownExchange(c)
	if err != nil {
		return err
	}
	id := e.ID
	owner := chatOwner(c)
	if err := a.streams.acquire(owner); err != nil {
		c.Response().Header().Set("Retry-After", "10")
		return err
	}
	sub := a.notifier.Subscribe(id) // before the snapshot, so no change falls between the two
	live := a.generator.WatchLive(id)
	end := func() {
		live.Close()
		sub.Close()
		a.streams.release(owner)
	}

	s := startSSE(c)
	shown := newShownMessages() // messages this stream has shown, and how
	if err := a.sendSnapshot(ctx, s, c, id, shown); err != nil {
		end()
		return nil // the client went away or the write failed: nothing more to say
	}
	// Waiting costs least outside the handler (stream_idle.go): take the connection over and return.
	if detached, cancel, ok := s.detach(); ok {
		dc := detachedContext(c)
		go func() {
			defer end()
			defer cancel()
			a.followStream(detached, s, dc, id, sub, live, shown)
		}()
		return nil
	}
	defer end()
	a.followStream(ctx, s, c, id, sub, live, shown)
	return nil
}

// followStream sends the conversation's changes on s after its snapshot, until ctx ends, the
// server closes or a write fails.
func (a *app) followStream(ctx context.Context, s *sseWriter, c echo.Context, id int64, sub *chat.Subscription, live *chat.LiveWatch, shown *shownMessages) {
	agents := map[int64]db.Agent{} // the agents of shown messages, read once per stream
	hasText := map[int64]bool{}    // messages whose text this stream has shown
	var err error
	var (
		last          time.Time        // when changes were last sent
		pending       []int64          // changed messages not sent yet
		window        <-chan time.Time // fires when the coalescing window of pending changes ends
		liveDirty     = true           // the live answer may be ahead of what was sent (the snapshot is read from the database)
		sentLive      int64            // the live answer's version last sent
		tail          []db.Message     // the last messages read, from just before the live answer on (see liveTail)
		sentReasoning string           // the live reasoning text last sent
	)
	kick := make(chan struct{}, 1)
	kick <- struct{}{}
	for {
		// While a window is open the live answer is read when it ends, so its every delta need not
		// wake the stream.
		liveReady := live.Ready()
		if window != nil {
			liveReady = nil
		}
		select {
		case <-ctx.Done():
			return
		case <-a.closing:
			return
		case <-a.heartbeat.C():
			if s.comment("ping") != nil {
				return
			}
			continue
		case <-sub.Ready():
			if sub.Resynced() { // notices may have been lost: show everything again
				clear(shown.items)
				clear(hasText)
				if err := a.sendSnapshot(ctx, s, c, id, shown); err != nil {
					return // the database is unreachable: end, so the browser reconnects for a snapshot
				}
				sub.Take()
				last, pending, window, tail, sentLive, liveDirty = time.Now(), nil, nil, nil, 0, true
				continue
			}
			pending = appendNew(pending, sub.Take())
		case <-liveReady:
			liveDirty = true
		case <-live.Ended(): // the answer's end goes out at once, window or not
			liveDirty = true
		case <-window:
			window, liveDirty = nil, true
		case <-kick:
		}
		var la chat.LiveAnswer
		isLive := false
		if liveDirty {
			la, isLive = a.generator.Live(id)
			if !isLive || la.Version == sentLive {
				if isLive && la.Final() {
					live.EndSent() // this stream has sent it already
				}
				liveDirty, isLive = false, false
			}
		}
		if len(pending) == 0 && !isLive {
			continue
		}
		firstText := isLive && la.Content != "" && !hasText[la.AnswerID]
		if window != nil && len(pending) == 0 && !firstText && !la.Final() {
			continue // the window's end sends it
		}
		ids := pending
		msgs := liveTail(tail, la.AnswerID)
		if len(pending) > 0 || msgs == nil {
			if isLive {
				ids = appendNew(slices.Clone(pending), []int64{la.AnswerID})
			}
			msgs, err = a.store.ExchangeTail(ctx, id, ids)
			if db.Unreachable(err) { // keep the changes and read them again in a moment
				window = time.After(time.Second)
				continue
			}
			if err != nil {
				return
			}
			tail = msgs
		} else {
			ids = []int64{la.AnswerID}
		}
		if isLive {
			overlayLive(msgs, la)
			if r := la.Reasoning; r != nil && r.Content != sentReasoning && inTail(msgs, r.ID) {
				ids = appendNew(slices.Clone(ids), []int64{r.ID})
			}
		}
		ids = withFinishedItems(ids, msgs)
		// Intermediate text waits for the coalescing window; a new message, the first text of an
		// answer and a finished message go out at once, so the end of an answer is never held back.
		if wait := streamCoalesce - time.Since(last); wait > 0 && !firstText && !urgent(ids, msgs, shown, hasText) {
			if window == nil {
				window = time.After(wait)
			}
			continue
		}
		if err := a.sendChanges(ctx, s, id, ids, msgs, shown, agents, endedLive(isLive, la)); err != nil {
			return
		}
		if endedLive(isLive, la) != 0 {
			live.EndSent()
		}
		for _, m := range msgs {
			if slices.Contains(ids, m.ID) {
				hasText[m.ID] = m.Content != ""
			}
		}
		if isLive {
			sentLive = la.Version
			if la.Reasoning != nil {
				sentReasoning = la.Reasoning.Content
			}
		}
		last, pending, window, liveDirty = time.Now(), nil, nil, false
	}
}

// liveTail returns tail when it holds the live answer answerID and what precedes it (so the answer
// can be rendered again without reading the database), else nil.
func liveTail(tail []db.Message, answerID int64) []db.Message {
	for i, m := range tail {
		if m.ID == answerID && i > 0 {
			return tail
		}
	}
	return nil
}

// overlayLive puts the live answer's text and status (and, once it has ended, its final
// metadata) into its message, and the live reasoning into its item, unless the database already
// holds their final state (live state is never behind a stored one while it is running).
func overlayLive(msgs []db.Message, la chat.LiveAnswer) {
	for i := range msgs {
		m := &msgs[i]
		if m.Status != db.StatusPending && m.Status != db.StatusStreaming {
			continue
		}
		switch {
		case m.ID == la.AnswerID:
			m.Content, m.Status = la.Content, la.Status
			if la.Final() {
				m.Metadata = mergeMetadata(m.Metadata, la.Metadata)
			}
		case la.Reasoning != nil && m.ID == la.Reasoning.ID:
			m.Content, m.Status = la.Reasoning.Content, la.Reasoning.Status
		}
	}
}

// mergeMetadata is stored || more for two JSON objects, as PostgreSQL's jsonb || merges them
// (more's top-level keys win); stored when more is not an object.
func mergeMetadata(stored, more json.RawMessage) json.RawMessage {
	var top map[string]json.RawMessage
	if len(stored) > 0 && json.Unmarshal(stored, &top) != nil {
		return stored
	}
	var add map[string]json.RawMessage
	if json.Unmarshal(more, &add) != nil {
		return stored
	}
	if top == nil {
		top = map[string]json.RawMessage{}
	}
	maps.Copy(top, add)
	merged, err := json.Marshal(top)
	if err != nil {
		return stored
	}
	return merged
}

// endedLive is the live answer's id when its end comes from memory (see sendChanges), else 0.
func endedLive(isLive bool, la chat.LiveAnswer) int64 {
	if isLive && la.Final() {
		return la.AnswerID
	}
	return 0
}

// withFinishedItems adds to ids the items (reasoning, function calls, their outputs) in msgs of
// every answer in ids that msgs show finished. The final write stores an answer with its items,
// and a read prompted by an earlier notice may already see that write before the notice naming
// the items arrives: sent with the answer, they never trail behind it (sendChanges skips those
// whose markup the client already has).
func withFinishedItems(ids []int64, msgs []db.Message) []int64 {
	var more []int64
	for _, m := range msgs {
		if m.ParentID == nil || slices.Contains(ids, m.ID) ||
			m.Role != db.RoleReasoning && m.Role != db.RoleFunctionCall && m.Role != db.RoleFunctionCallOutput {
			continue
		}
		if slices.ContainsFunc(msgs, func(p db.Message) bool {
			return p.ID == *m.ParentID && p.Role == db.RoleAssistant && slices.Contains(ids, p.ID) &&
				p.Status != db.StatusPending && p.Status != db.StatusStreaming
		}) {
			more = append(more, m.ID)
		}
	}
	if len(more) == 0 {
		return ids
	}
	return appendNew(slices.Clone(ids), more)
}

// inTail reports whether msgs holds the message id.
func inTail(msgs []db.Message, id int64) bool {
	return slices.ContainsFunc(msgs, func(m db.Message) bool { return m.ID == id })
}

// urgent reports whether a change must be sent without waiting: a message the stream has not
// shown yet, the first text of an answer, or a message that is no longer being generated.
func urgent(ids []int64, msgs []db.Message, shown *shownMessages, hasText map[int64]bool) bool {
	for _, id := range ids {
		if !shown.has(id) {
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

// sendChanges sends one partial per changed message, in display order: a message the stream has
// shown replaces itself; a new one is inserted before the next message the stream has shown (or at
// the end), so a new turn never costs re-rendering the whole conversation. A message whose markup
// (and the busy flag) the client already has is not sent (see shownMessages). ended, when not 0,
// is the answer whose end comes from memory: its ‹ n/m › versions are not read for it (a database
// round trip before the end goes out) but come with the stored state read back, which is sent
// again only when they add something.
func (a *app) sendChanges(ctx context.Context, s *sseWriter, exchangeID int64, ids []int64, msgs []db.Message, shown *shownMessages, agents map[int64]db.Agent, ended int64) error {
	var missing []int64
	for _, id := range agentIDs(msgs) {
		if _, ok := agents[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		more, err := a.store.AgentsByID(ctx, missing)
		if err != nil {
			return err
		}
		maps.Copy(agents, more)
	}
	read := ids
	if ended != 0 {
		read = slices.DeleteFunc(slices.Clone(ids), func(id int64) bool { return id == ended })
	}
	versions, err := a.finishedVersions(ctx, exchangeID, read, msgs)
	if err != nil {
		return err
	}
	isBusy := busy(msgs)
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	for i, m := range msgs {
		if !slices.Contains(ids, m.ID) {
			continue
		}
		v := messageViewAt(msgs, i, agents)
		setVersions(&v, versions)
		fp, err := renderItem(ctx, buf, v, exchangeID)
		if err != nil {
			return err
		}
		sent, first := shown.items[m.ID], !shown.has(m.ID)
		if !first && sent == fp && shown.busy == isBusy {
			continue // the client shows exactly this
		}
		if first {
			where := "beforeend:#message-list"
			for _, next := range msgs[i+1:] {
				if shown.has(next.ID) {
					where = "beforebegin:#" + views.MessageElementID(next.ID)
					break
				}
			}
			buf.Reset()
			err = views.MessagesInsert(where, []views.MessageView{v}, exchangeID).Render(ctx, buf)
		}
		if err == nil {
			err = views.ChatStatus(isBusy, true).Render(ctx, buf)
		}
		if err != nil {
			return err
		}
		shown.items[m.ID], shown.busy = fp, isBusy
		if err := s.event(eventName(m, first), buf.String()); err != nil {
			return err
		}
	}
	return nil
}

// sendSnapshot sends every message as one partial replacing the list's contents, and records them
// as shown.
func (a *app) sendSnapshot(ctx context.Context, s *sseWriter, c echo.Context, exchangeID int64, shown *shownMessages) error {
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
	if err := shown.remember(ctx, pane); err != nil {
		return err
	}
	return s.event("snapshot", buf.String())
}

// eventName is Gnosari's name for what a message's state says happened; the user's own message
// is user_message. first says the stream has not sent the message before: a tool call's first
// appearance is tool_call_started even when it already finished (within one coalescing window).
func eventName(m db.Message, first bool) string {
	switch m.Role {
	case db.RoleUser:
		return "user_message"
	case db.RoleReasoning:
		return "agent_thinking"
	case db.RoleFunctionCall:
		if first || m.Status == db.StatusStreaming {
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
	case db.StatusFailed, db.StatusCancelled, db.StatusInterrupted:
		return "error" // the data's status says which
	}
	return "agent_completed"
}

// sseWriter writes Server-Sent Events: every line of data gets its own "data:" prefix, and each
// event an increasing id.
type sseWriter struct {
	w io.Writer
	// rc flushes w; nil once the stream has taken its connection over (see detach).
	rc *http.ResponseController
	// hijackable says the connection is HTTP/1.x, whose body ends with the connection: the stream
	// may take it over (detach) and write to it directly.
	hijackable bool
	id         int64
}

// startSSE answers 200 as an unbuffered event stream with no write deadline and returns its writer.
// Over HTTP/1.1 the body is sent as it is, not chunked, ended by closing the connection (the
// setting the SSE specification recommends), so that detach can hand the connection over as is.
func startSSE(c echo.Context) *sseWriter {
	w := c.Response()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	hijackable := c.Request().ProtoMajor == 1
	if hijackable {
		h.Set("Transfer-Encoding", "identity") // net/http: no chunking, Connection: close
	} else {
		h.Set("Connection", "keep-alive")
	}
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{})
	return &sseWriter{w: w, rc: rc, hijackable: hijackable}
}

// flush sends what was written at once.
func (s *sseWriter) flush() error {
	if s.rc == nil {
		return nil
	}
	return s.rc.Flush()
}

func (s *sseWriter) event(name, data string) error {
	s.id++
	b := eventBuffers.Get().(*bytes.Buffer)
	defer eventBuffers.Put(b)
	b.Reset()
	b.Grow(len(data) + len(data)/8 + 64)
	fmt.Fprintf(b, "id: %d-%d\nevent: %s\n", time.Now().UnixMilli(), s.id, name)
	for line := range strings.SplitSeq(data, "\n") {
		b.WriteString("data: ")
		b.WriteString(strings.TrimSuffix(line, "\r"))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	if _, err := s.w.Write(b.Bytes()); err != nil {
		return err
	}
	return s.flush()
}

// eventBuffers holds the buffers events are framed in, shared by all streams (an idle stream
// keeps none).
var eventBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func (s *sseWriter) comment(text string) error {
	if _, err := s.w.Write([]byte(": " + text + "\n\n")); err != nil {
		return err
	}
	return s.flush()
}
