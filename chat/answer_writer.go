package chat

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"parley/agents"
	"parley/db"
)

// firstFlush is how long the first text of an answer waits before it is stored: an answer that
// ends sooner (a fast local model, the offline agent) costs one final write instead of two.
const firstFlush = 50 * time.Millisecond

// answerWriter holds a streaming answer in memory and persists it: the text into the assistant
// message and the reasoning into a reasoning item before it. Streams on this instance read the
// text from memory (Generator.Live, signalled on every delta); the database, and with it every
// other instance, gets it on a durable cadence: the first text after firstFlush, later text at most
// every FlushEvery, and the final write. Each write is published. Writes happen outside the
// provider's goroutine (a timer), so a slow database never slows the relay.
type answerWriter struct {
	g   *Generator
	job Job
	ctx context.Context

	mu          sync.Mutex
	answer      strings.Builder // the answer so far, all rounds (a Builder: appending 2,000 deltas stays linear)
	version     int64           // increases with each change of answer (LiveAnswer.Version)
	roundText   bool            // this round has added text
	textDirty   bool            // text changed since it was last stored
	reasoning   *db.Message
	reasonDirty bool
	firstDelta  time.Time // when the first text or reasoning arrived
	lastFlush   time.Time
	timer       *time.Timer

	// writeMu serialises the store writes, so a periodic write never lands after the final one.
	writeMu sync.Mutex
	// finished: the final state is written (under writeMu), and no later write may overwrite it.
	finished bool
}

// startRound begins a model call: its reasoning gets a new item. Streams on this instance show the
// answer as streaming at once (the database keeps pending until the first text is stored).
func (w *answerWriter) startRound() {
	w.mu.Lock()
	w.reasoning = nil
	w.version++
	w.mu.Unlock()
	w.g.live.signal(w.job.ExchangeID)
}

// emit receives provider events (from the provider's goroutine).
func (w *answerWriter) emit(ev agents.Event) error {
	switch ev.Kind {
	case agents.EventTextDelta:
		w.mu.Lock()
		w.answer.WriteString(ev.Text)
		w.version++
		w.roundText = true
		w.textDirty = true
		w.scheduleLocked()
		w.mu.Unlock()
		w.g.live.signal(w.job.ExchangeID)
	case agents.EventReasoningDelta:
		// The reasoning item is stored with the first write that carries it (one INSERT with its
		// text, rather than an empty INSERT now and an UPDATE soon after).
		w.mu.Lock()
		if w.reasoning == nil {
			w.reasoning = &db.Message{ParentID: &w.job.AnswerID, Role: db.RoleReasoning, Status: db.StatusStreaming,
				AgentID: &w.job.Agent.ID, AgentType: w.job.Agent.AgentType}
		}
		w.reasoning.Content += ev.Text
		w.reasonDirty = true
		w.scheduleLocked()
		w.mu.Unlock()
	}
	return nil
}

// scheduleLocked arms one trailing write, due firstFlush after the first delta or FlushEvery after
// the last write.
func (w *answerWriter) scheduleLocked() {
	if w.firstDelta.IsZero() {
		w.firstDelta = time.Now()
	}
	if w.timer != nil {
		return
	}
	wait := w.g.FlushEvery - time.Since(w.lastFlush)
	if w.lastFlush.IsZero() {
		wait = firstFlush - time.Since(w.firstDelta)
	}
	w.timer = time.AfterFunc(max(wait, 0), func() { w.flush(flushDue, "", nil) })
}

// flushMode says what a flush stores.
type flushMode int

const (
	flushDue       flushMode = iota // what changed: text (as streaming) and reasoning
	flushReasoning                  // the reasoning item only; the text waits for the final write
	flushFinal                      // everything, with the answer's final status; nothing after it
)

// flush stores what mode says and publishes each write. For flushFinal, status and meta (merged
// into the stored metadata's top-level keys) are the answer's final state, stored with its search
// index.
func (w *answerWriter) flush(mode flushMode, status string, meta json.RawMessage) {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	w.mu.Lock()
	if w.finished {
		w.mu.Unlock()
		return
	}
	var reasoning, item *db.Message // a copy to write, and the writer's own to give its id
	if w.reasonDirty && w.reasoning != nil {
		r := *w.reasoning
		reasoning, item = &r, w.reasoning
	}
	w.reasonDirty = false
	text, content := false, ""
	if mode != flushReasoning {
		if w.timer != nil {
			w.timer.Stop() // a due flush is this timer's own, or ran early for a tool call
			w.timer = nil
		}
		text, content = w.textDirty, w.answer.String()
		w.textDirty = false
		w.lastFlush = time.Now()
	}
	w.finished = mode == flushFinal
	w.mu.Unlock()

	if reasoning != nil {
		w.storeReasoning(reasoning, item)
	}
	switch {
	case mode == flushFinal:
		if err := w.g.Store.FinishAnswer(w.ctx, w.job.AnswerID, content, status, meta); err != nil {
			w.g.Log.Error("storing answer", "error", err)
		}
		w.g.live.remove(w.job.ExchangeID, w) // before the notice: streams then read the final state
	case text:
		if err := w.g.Store.SetAnswer(w.ctx, w.job.AnswerID, content, db.StatusStreaming, nil); err != nil {
			w.g.Log.Error("storing answer", "error", err)
			return
		}
	default:
		return
	}
	w.g.Notifier.Publish(w.job.ExchangeID, w.job.AnswerID)
}

// storeReasoning inserts the reasoning item (its first write) or updates it, and publishes it.
func (w *answerWriter) storeReasoning(r, item *db.Message) {
	if r.ID != 0 {
		if err := w.g.Store.UpdateItem(w.ctx, *r); err != nil {
			w.g.Log.Error("storing reasoning", "error", err)
			return
		}
		w.g.Notifier.Publish(w.job.ExchangeID, r.ID)
		return
	}
	stored, err := w.g.Store.InsertBefore(w.ctx, w.job.AnswerID, *r)
	if err != nil {
		w.g.Log.Error("storing reasoning", "error", err)
		return
	}
	w.mu.Lock()
	item.ID = stored.ID
	w.mu.Unlock()
	w.g.Notifier.Publish(w.job.ExchangeID, stored.ID)
}

// endRound closes this round's reasoning item. When more rounds follow (tool calls), it also stores
// the text so far; otherwise the text goes out with the final write alone.
func (w *answerWriter) endRound(more bool) {
	w.mu.Lock()
	if w.reasoning != nil {
		w.reasoning.Status = db.StatusComplete
		w.reasonDirty = true
	}
	dirty := w.reasonDirty || more && w.textDirty
	w.mu.Unlock()
	switch {
	case more && dirty:
		w.flush(flushDue, "", nil)
	case dirty:
		w.flush(flushReasoning, "", nil)
	}
}

// resetText starts the next round's text after a tool call, keeping what was said so far.
func (w *answerWriter) resetText() {
	w.mu.Lock()
	if w.roundText {
		w.answer.WriteString("\n\n")
		w.version++
	}
	w.roundText = false
	w.mu.Unlock()
}

// publishAnswer republishes the answer (its position changed).
func (w *answerWriter) publishAnswer() { w.g.Notifier.Publish(w.job.ExchangeID, w.job.AnswerID) }

// finish stores the final status and metadata of the answer, with its text and search index.
func (w *answerWriter) finish(status string, meta map[string]any) {
	b, _ := json.Marshal(meta)
	w.flush(flushFinal, status, b)
}
