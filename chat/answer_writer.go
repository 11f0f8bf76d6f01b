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

// answerWriter persists a streaming answer: the text into the assistant message and the reasoning
// into a reasoning item before it. The first text is written at once; later text at most every
// FlushEvery, plus a trailing write so nothing waits longer than that. Each write is published.
type answerWriter struct {
	g   *Generator
	job Job
	ctx context.Context
	// until bounds retrying the final write while the database is unreachable (the answer timeout).
	until time.Time

	mu          sync.Mutex
	answer      strings.Builder // the answer so far, all rounds (a Builder: appending 2,000 deltas stays linear)
	roundStart  int             // where this round's text begins in answer
	roundText   bool            // this round has added text
	textDirty   bool
	wroteText   bool
	reasoning   *db.Message
	reasonDirty bool
	lastFlush   time.Time
	timer       *time.Timer
	// markedStreaming: the answer's status is streaming in the database.
	markedStreaming bool
	// finished: the final state is written, and no later flush may overwrite it.
	finished bool
}

func (w *answerWriter) startRound() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reasoning = nil
	w.roundStart = w.answer.Len()
	if !w.markedStreaming {
		w.flushLocked(db.StatusStreaming, nil) // pending → streaming: the typing indicator shows
	}
}

// emit receives provider events (from the provider's goroutine).
func (w *answerWriter) emit(ev agents.Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch ev.Kind {
	case agents.EventTextDelta:
		w.answer.WriteString(ev.Text)
		w.roundText = true
		w.textDirty = true
		if !w.wroteText {
			w.wroteText = true
			w.flushLocked(db.StatusStreaming, nil)
			return nil
		}
	case agents.EventTextWasReasoning:
		// The round's text so far was reasoning (a closing </think> without an opening tag).
		kept := w.answer.String()[:w.roundStart]
		w.answer.Reset()
		w.answer.WriteString(kept)
		w.roundText = false
		w.textDirty = true
		if err := w.addReasoning(ev.Text); err != nil {
			return err
		}
	case agents.EventReasoningDelta:
		if err := w.addReasoning(ev.Text); err != nil {
			return err
		}
	default:
		return nil
	}
	w.scheduleLocked()
	return nil
}

// addReasoning appends to this round's reasoning item, inserting it before the answer first.
func (w *answerWriter) addReasoning(text string) error {
	if w.reasoning == nil {
		item, err := w.g.Store.InsertBefore(w.ctx, w.job.AnswerID, db.Message{
			ParentID: &w.job.AnswerID, Role: db.RoleReasoning, Status: db.StatusStreaming,
			AgentID: &w.job.Agent.ID, AgentType: w.job.Agent.AgentType,
		})
		if err != nil {
			return err
		}
		w.reasoning = &item
	}
	w.reasoning.Content += text
	w.reasonDirty = true
	return nil
}

// scheduleLocked writes now when the last write is FlushEvery old, else arms one trailing write.
func (w *answerWriter) scheduleLocked() {
	wait := w.g.FlushEvery - time.Since(w.lastFlush)
	if wait <= 0 {
		w.flushLocked(db.StatusStreaming, nil)
		return
	}
	if w.timer == nil {
		var t *time.Timer
		t = time.AfterFunc(wait, func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			if w.timer != t || w.finished {
				return // stopped or superseded after it fired
			}
			w.timer = nil
			w.flushLocked(db.StatusStreaming, nil)
		})
		w.timer = t
	}
}

// flushLocked writes what changed and publishes it. status and meta apply to the answer.
func (w *answerWriter) flushLocked(status string, meta json.RawMessage) {
	w.lastFlush = time.Now()
	w.flushReasoningLocked()
	if w.textDirty || status != db.StatusStreaming || meta != nil || !w.markedStreaming {
		if err := w.setAnswer(status, meta); err != nil {
			if status != db.StatusStreaming || !db.Unreachable(err) { // else the next write carries the text
				w.g.Log.Error("storing answer", "error", err)
			}
			return
		}
		w.ctx = db.WithClaimedLease(w.ctx) // written once: from now on only while the answer is ours
		w.markedStreaming = true
		w.textDirty = false
		w.g.Notifier.Publish(w.job.ExchangeID, w.job.AnswerID)
	}
}

// setAnswer stores the answer. A streaming write that fails leaves the text dirty for the next
// one (the text stays in memory); the final write is retried while the database is unreachable,
// until w.until.
func (w *answerWriter) setAnswer(status string, meta json.RawMessage) error {
	content := w.answer.String()
	if status == db.StatusStreaming {
		return w.g.Store.SetAnswer(w.ctx, w.job.AnswerID, content, status, meta)
	}
	until := w.until
	if least := time.Now().Add(w.g.lease()); until.Before(least) { // an answer that ended at its timeout
		until = least
	}
	return w.g.untilReachable(w.ctx, until, func(ctx context.Context) error {
		return w.g.Store.SetAnswer(ctx, w.job.AnswerID, content, status, meta)
	})
}

// flushReasoningLocked writes the reasoning item if it changed, and publishes it.
func (w *answerWriter) flushReasoningLocked() {
	if w.reasonDirty && w.reasoning != nil {
		if err := w.g.Store.UpdateItem(w.ctx, *w.reasoning); err == nil {
			w.reasonDirty = false
			w.g.Notifier.Publish(w.job.ExchangeID, w.reasoning.ID)
		}
	}
}

// endRound closes this round's reasoning item. When more rounds follow (tool calls), it also writes
// the text so far; otherwise the text goes out with the final write alone, saving a large UPDATE
// at the moment the person waits for the end.
func (w *answerWriter) endRound(more bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if w.reasoning != nil {
		w.reasoning.Status = db.StatusComplete
		w.reasonDirty = true
	}
	if more && (w.reasonDirty || w.textDirty) {
		w.flushLocked(db.StatusStreaming, nil)
	} else {
		w.flushReasoningLocked()
	}
}

// resetText starts the next round's text after a tool call, keeping what was said so far.
func (w *answerWriter) resetText() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.roundText {
		w.answer.WriteString("\n\n")
	}
	w.roundText = false
}

// publishAnswer republishes the answer (its position changed).
func (w *answerWriter) publishAnswer() { w.g.Notifier.Publish(w.job.ExchangeID, w.job.AnswerID) }

// finish stores the final status and metadata of the answer.
func (w *answerWriter) finish(status string, meta map[string]any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	b, _ := json.Marshal(meta)
	w.flushLocked(status, b)
	w.finished = true
	if err := w.g.Store.IndexMessage(w.ctx, w.job.AnswerID); err != nil { // after the streams have it
		w.g.Log.Error("indexing answer", "error", err)
	}
}
