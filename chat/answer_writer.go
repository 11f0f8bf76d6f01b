package chat

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"parley/agents"
	"parley/db"
)

// firstFlush is how long the first text of an answer waits before it is stored: an answer that
// ends sooner (a fast local model, the offline agent) costs one final write instead of two.
const firstFlush = 50 * time.Millisecond

// answerWriter holds a streaming answer in memory and persists it: the text into the assistant
// message, and the turn's items (reasoning, function calls and their outputs) before it, all in one
// statement per write (db.WriteAnswer). Streams on this instance read the text from memory
// (Generator.Live, signalled on every delta); the database, and with it every other instance, gets
// it on a durable cadence: the first text after firstFlush, later text at most every FlushEvery, a
// function call at once (it shows running while the tool runs), its outcome with the next write
// (at most firstFlush later), and the final write. Each write is published. Writes happen outside
// the provider's goroutine (a timer), so a slow database never slows the relay. While the database
// is unreachable the text and items stay in memory: a streaming write that fails leaves them for
// the next one, and the final write is retried (Generator.untilReachable) until the answer's time
// is up.
type answerWriter struct {
	g   *Generator
	job Job
	// ctx carries the generation's lease (db.WithLease); it is read and replaced under writeMu.
	ctx context.Context
	// until bounds retrying the final write while the database is unreachable (the answer timeout).
	until time.Time

	mu      sync.Mutex
	answer  strings.Builder // the answer so far, all rounds (a Builder: appending 2,000 deltas stays linear)
	version int64           // increases with each change of answer (LiveAnswer.Version)
	// signalled is set when a delta signalled this answer's watches, and cleared by every Live
	// read: until a reader reads, further deltas need not signal again (see signalDelta).
	signalled  atomic.Bool
	roundStart int           // where this round's text begins in answer
	roundText  bool          // this round has added text
	textDirty  bool          // text changed since it was last stored
	items      []*answerItem // the answer's items, in order; an item with ID 0 is not stored yet
	reasoning  *answerItem   // this round's reasoning item, if any
	firstDelta time.Time     // when the first text or reasoning arrived
	lastFlush  time.Time
	timer      *time.Timer
	due        time.Time // when timer fires

	// writeMu serialises the store writes, so a periodic write never lands after the final one.
	writeMu sync.Mutex
	// finished: the final state is written (under writeMu), and no later write may overwrite it.
	finished bool
	// claimed: the answer is marked streaming under this generation's lease (under writeMu).
	claimed bool
	// finalStatus and finalMeta are the answer's end, set (under mu) when the final write begins if
	// streams here may show it before the write lands (LiveAnswer.Status; see flush); stored is closed when
	// that write is done or given up.
	finalStatus string
	finalMeta   json.RawMessage
	stored      chan struct{}
}

// liveEpochs numbers the answer writers of this instance: a writer's versions count up from its
// number × 2³², so two answers (or two runs of one, a Retry) never share a version and a stream
// that sent version v of one never mistakes the other's v for shown (2,000 deltas each, say).
var liveEpochs atomic.Int64

// answerItem is one item of the answer as the writer holds it: dirty until its state is stored.
type answerItem struct {
	db.Message
	dirty bool
}

// newAnswerWriter is the writer of job's answer, written with ctx (carrying the lease) until the
// answer's deadline. A job whose answer StartTurn stored claimed (Job.Lease) writes as claimed.
func newAnswerWriter(g *Generator, job Job, ctx context.Context, until time.Time) *answerWriter {
	w := &answerWriter{g: g, job: job, ctx: ctx, until: until, stored: make(chan struct{}),
		version: liveEpochs.Add(1) << 32}
	if job.Lease.Holder != "" {
		w.claimLocked()
	}
	return w
}

// startRound begins a model call: its reasoning gets a new item. Streams on this instance show the
// answer as streaming at once. The first round of an answer that is not claimed yet (a retry) also
// marks it streaming in the database, which claims it for this generation's lease: from then on the
// heartbeat keeps it, however long the model takes to send its first text, and no other instance's
// reaper takes it for abandoned.
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
		if errors.Is(err, db.ErrLeaseLost) {
			w.lose()
			return
		}
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
// answer is this generation's (db.WithClaimedLease). writeMu is held (or w is new).
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
		w.signalDelta()
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
			w.signalDelta()
		}
	}
	return nil
}

// signalDelta signals the answer's watches that it changed, unless a delta since the last Live
// read already did: a watch that was signalled reads the answer (Generator.Live) after the signal,
// so it gets this change too. Every Live read clears the flag before it reads, so a change after a
// read always signals. A fast model's burst of deltas, which streams read once per coalescing
// window, then costs one signal per read instead of one per delta.
func (w *answerWriter) signalDelta() {
	if !w.signalled.Swap(true) {
		w.g.live.signal(w.job.ExchangeID)
	}
}

// addReasoningLocked appends to this round's reasoning item. The item is stored with the first
// write that carries it (one INSERT with its text, rather than an empty INSERT now and an UPDATE
// soon after).
func (w *answerWriter) addReasoningLocked(text string) {
	if w.reasoning == nil {
		w.reasoning = w.addItemLocked(db.Message{ParentID: &w.job.AnswerID, Role: db.RoleReasoning, Status: db.StatusStreaming,
			AgentID: &w.job.Agent.ID, AgentType: w.job.Agent.AgentType})
	}
	w.reasoning.Content += text
	w.reasoning.dirty = true
}

func (w *answerWriter) addItemLocked(m db.Message) *answerItem {
	it := &answerItem{Message: m, dirty: true}
	w.items = append(w.items, it)
	return it
}

// startCall stores a function call item, with everything else not stored yet, and returns it.
func (w *answerWriter) startCall(m db.Message) *answerItem {
	w.mu.Lock()
	it := w.addItemLocked(m)
	w.mu.Unlock()
	w.flush(flushDue, "", nil)
	return it
}

// finishCall records a function call's outcome and its output item; they are stored with the
// answer's next write, at most firstFlush from now.
func (w *answerWriter) finishCall(call *answerItem, status string, durationMS int, output db.Message) {
	w.mu.Lock()
	call.Status, call.DurationMS, call.dirty = status, &durationMS, true
	w.addItemLocked(output)
	w.dueLocked(time.Now().Add(firstFlush))
	w.mu.Unlock()
}

// scheduleLocked arms one trailing write, due firstFlush after the first delta or FlushEvery after
// the last write.
func (w *answerWriter) scheduleLocked() {
	if w.firstDelta.IsZero() {
		w.firstDelta = time.Now()
	}
	due := w.lastFlush.Add(w.g.FlushEvery)
	if w.lastFlush.IsZero() {
		due = w.firstDelta.Add(firstFlush)
	}
	w.dueLocked(due)
}

// dueLocked makes sure a write happens by due (one timer: an earlier due replaces a later one; a
// write stores everything that changed, so a replaced timer that still fires writes nothing new).
func (w *answerWriter) dueLocked(due time.Time) {
	if w.timer != nil {
		if !w.due.After(due) {
			return
		}
		w.timer.Stop()
	}
	w.due = due
	w.timer = time.AfterFunc(max(time.Until(due), 0), func() { w.flush(flushDue, "", nil) })
}

// flushMode says what a flush stores.
type flushMode int

const (
	flushDue   flushMode = iota // what changed: text (as streaming) and items
	flushFinal                  // everything, with the answer's final status; nothing after it
)

// flush stores what changed in one write and publishes it. For flushFinal, status and meta (merged
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
	if w.timer != nil {
		w.timer.Stop() // a due flush is this timer's own, or ran early for a tool call
		w.timer = nil
	}
	write := db.AnswerWrite{ID: w.job.AnswerID, Content: w.answer.String(), Status: db.StatusStreaming}
	var inserted, written []*answerItem
	for _, it := range w.items {
		if !it.dirty {
			continue
		}
		it.dirty = false
		written = append(written, it)
		if it.ID == 0 {
			write.Insert = append(write.Insert, it.Message)
			inserted = append(inserted, it)
		} else {
			write.Update = append(write.Update, it.Message)
		}
	}
	text := w.textDirty
	w.textDirty = false
	w.lastFlush = time.Now()
	w.finished = mode == flushFinal
	// Streams here show the end from memory before the final write lands only when nothing else
	// they show changes with that write (this round's reasoning they follow from memory too): an
	// item stored with it would show a running tool call under a finished answer, and the answer
	// would be sent again when the write is read back.
	showEnd := w.finished && !slices.ContainsFunc(written, func(it *answerItem) bool { return it != w.reasoning || it.ID == 0 })
	if showEnd {
		w.finalStatus, w.finalMeta = status, meta
		w.version++
	}
	w.mu.Unlock()
	if showEnd {
		// Streams here show the end now, and the database gets it once they have (endSendWait).
		w.g.live.signalEnd(w.job.ExchangeID).wait()
	}

	var ids []int64
	var err error
	if mode == flushFinal {
		write.Status, write.Metadata, write.Index = status, meta, true
		until := w.until
		if least := time.Now().Add(w.g.lease()); until.Before(least) { // an answer that ended at its timeout
			until = least
		}
		err = w.g.untilReachable(w.ctx, until, func(ctx context.Context) (err error) {
			ids, err = w.g.Store.WriteAnswer(ctx, write)
			return err
		})
		if errors.Is(err, db.ErrLeaseLost) {
			w.g.Log.Info("answer taken over by another generation; its final write was dropped", "answer", w.job.AnswerID)
		} else if err != nil {
			w.g.Log.Error("storing answer", "error", err)
		}
		close(w.stored)
		w.g.live.remove(w.job.ExchangeID, w) // before the notice: streams then read the final state
	} else {
		if !text && len(written) == 0 {
			return
		}
		if ids, err = w.g.Store.WriteAnswer(w.ctx, write); err != nil {
			if errors.Is(err, db.ErrLeaseLost) {
				w.lose()
				return
			}
			if !db.Unreachable(err) {
				w.g.Log.Error("storing answer", "error", err)
			}
			w.mu.Lock()
			w.textDirty = w.textDirty || text // the text and items stay in memory for the next write
			for _, it := range written {
				it.dirty = true
			}
			w.mu.Unlock()
			return
		}
		w.claimLocked()
	}
	w.mu.Lock()
	for i, it := range inserted {
		if i < len(ids) {
			it.ID = ids[i]
		}
	}
	w.mu.Unlock()
	for _, it := range written {
		if it.ID != 0 {
			w.g.Notifier.Publish(w.job.ExchangeID, it.ID)
		}
	}
	w.g.Notifier.Publish(w.job.ExchangeID, w.job.AnswerID)
}

// lose ends a writer whose answer is no longer its generation's (db.ErrLeaseLost: purged,
// interrupted by a reaper and retried, taken by another generation): it writes nothing more, lets
// go of the live answer, tells this instance's streams to read the stored one, and stops the
// generation, so the model is not read to the end for nobody. w.writeMu is held.
func (w *answerWriter) lose() {
	w.mu.Lock()
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	w.finished = true
	w.mu.Unlock()
	w.g.Log.Info("answer taken over by another generation; this one stops", "answer", w.job.AnswerID)
	close(w.stored)
	w.g.live.remove(w.job.ExchangeID, w)
	w.g.Notifier.Publish(w.job.ExchangeID, w.job.AnswerID)
	w.g.cancelHeld(w.job.AnswerID, errLeaseLost)
}

// endRound closes this round's reasoning item; it is stored with the next write (a function call's,
// or the final one).
func (w *answerWriter) endRound() {
	w.mu.Lock()
	if w.reasoning != nil {
		w.reasoning.Status, w.reasoning.dirty = db.StatusComplete, true
	}
	w.mu.Unlock()
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

// finish stores the final status and metadata of the answer, with its text, its items and search
// index.
func (w *answerWriter) finish(status string, meta map[string]any) {
	b, _ := json.Marshal(meta)
	w.flush(flushFinal, status, b)
}
