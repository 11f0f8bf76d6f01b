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
// provider's goroutine (a timer), so a slow database never slows the relay. While the database is
// unreachable the text stays in memory: a streaming write that fails leaves it for the next one,
// and the final write is retried (Generator.untilReachable) until the answer's time is up.
type answerWriter struct {
	g   *Generator
	job Job
	// ctx carries the generation's lease (db.WithLease); it is read and replaced under writeMu.
	ctx context.Context
	// until bounds retrying the final write while the database is unreachable (the answer timeout).
	until time.Time

	mu          sync.Mutex
	answer      strings.Builder // the answer so far, all rounds (a Builder: appending 2,000 deltas stays linear)
	version     int64           // increases with each change of answer (LiveAnswer.Version)
	roundStart  int             // where this round's text begins in answer
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
	// claimed: the answer is marked streaming under this generation's lease (under writeMu).
	claimed bool
	// finalStatus and finalMeta are the answer's end, set (under mu) when the final write begins,
	// so streams here show it before the write lands (LiveAnswer.Status); stored is closed when
	// that write is done or given up.
	finalStatus string
	finalMeta   json.RawMessage
	stored      chan struct{}
}

// startRound begins a model call: its reasoning gets a new item. Streams on this instance show the
// answer as streaming at once. The first round also marks the answer streaming in the database,
// which claims it for this generation's lease: from then on the heartbeat keeps it, however long
// the model takes to send its first text, and no other instance's reaper takes it for abandoned.
func (w *answerWriter) startRound() {
	w.mu.Lock()
	w.reasoning = nil
	w.roundStart = w.answer.Len()
	w.version++
	w.mu.Unlock()
	w.g.live.signal(w.job.ExchangeID)
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if w.claimed || w.finished {
		return
	}
	if err := w.g.Store.SetAnswer(w.ctx, w.job.AnswerID, "", db.StatusStreaming, nil); err != nil {
		if !db.Unreachable(err) { // else a later write claims it
			w.g.Log.Error("storing answer", "error", err)
		}
		return
	}
	w.claimLocked()
	// No notice: streams here already show it streaming (live), and one would open a coalescing
	// window that holds back the first text; other instances see it with the first text.
}

// claimLocked records that the answer was written under the lease: from now on only while the
// answer is this generation's (db.WithClaimedLease). writeMu is held.
func (w *answerWriter) claimLocked() {
	w.claimed = true
	w.ctx = db.WithClaimedLease(w.ctx)
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
	case agents.EventTextWasReasoning:
		// The round's text so far was reasoning (a closing </think> without an opening tag).
		w.mu.Lock()
		kept := w.answer.String()[:w.roundStart]
		w.answer.Reset()
		w.answer.WriteString(kept)
		w.version++
		w.roundText = false
		w.textDirty = true
		w.addReasoningLocked(ev.Text)
		w.scheduleLocked()
		w.mu.Unlock()
		w.g.live.signal(w.job.ExchangeID)
	case agents.EventReasoningDelta:
		w.mu.Lock()
		w.addReasoningLocked(ev.Text)
		w.scheduleLocked()
		live := w.reasoning.ID != 0 // stored once: streams here follow its text from memory
		if live {
			w.version++
		}
		w.mu.Unlock()
		if live {
			w.g.live.signal(w.job.ExchangeID)
		}
	}
	return nil
}

// addReasoningLocked appends to this round's reasoning item. The item is stored with the first
// write that carries it (one INSERT with its text, rather than an empty INSERT now and an UPDATE
// soon after).
func (w *answerWriter) addReasoningLocked(text string) {
	if w.reasoning == nil {
		w.reasoning = &db.Message{ParentID: &w.job.AnswerID, Role: db.RoleReasoning, Status: db.StatusStreaming,
			AgentID: &w.job.Agent.ID, AgentType: w.job.Agent.AgentType}
	}
	w.reasoning.Content += text
	w.reasonDirty = true
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
	if w.finished {
		w.finalStatus, w.finalMeta = status, meta
		w.version++
	}
	w.mu.Unlock()
	if mode == flushFinal {
		w.g.live.signalEnd(w.job.ExchangeID) // streams here show the end now, the database gets it next
	}

	if reasoning != nil {
		w.storeReasoning(reasoning, item)
	}
	switch {
	case mode == flushFinal:
		until := w.until
		if least := time.Now().Add(w.g.lease()); until.Before(least) { // an answer that ended at its timeout
			until = least
		}
		if err := w.g.untilReachable(w.ctx, until, func(ctx context.Context) error {
			return w.g.Store.FinishAnswer(ctx, w.job.AnswerID, content, status, meta)
		}); err != nil {
			w.g.Log.Error("storing answer", "error", err)
		}
		close(w.stored)
		w.g.live.remove(w.job.ExchangeID, w) // before the notice: streams then read the final state
	case text:
		if err := w.g.Store.SetAnswer(w.ctx, w.job.AnswerID, content, db.StatusStreaming, nil); err != nil {
			if !db.Unreachable(err) {
				w.g.Log.Error("storing answer", "error", err)
			}
			w.mu.Lock()
			w.textDirty = true // the text stays in memory for the next write
			w.mu.Unlock()
			return
		}
		w.claimLocked()
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
