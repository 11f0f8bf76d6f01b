package chat

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"parley/db"
)

// LiveAnswer is an exchange's running answer as its generator holds it in memory on this
// instance, ahead of the database (which is written on a slower, durable cadence). Content is the
// whole text so far; Version increases with every change and is never reused on this instance, by
// another answer or another run of the same one (each run's versions start in an epoch of their
// own), so a reader can tell it has shown this state already.
type LiveAnswer struct {
	AnswerID int64
	Content  string
	// Status is db.StatusStreaming while the model answers. From when the answer has ended until
	// its final write is stored (a few milliseconds), it is the final status (db.StatusComplete,
	// StatusFailed, StatusCancelled, StatusInterrupted) and Metadata the final write's metadata,
	// to merge into the stored metadata's top-level keys as that write does; nil before.
	Status   string
	Metadata json.RawMessage
	// Reasoning is the current round's reasoning item with its text so far, once the item is
	// stored (its ID is known); nil otherwise.
	Reasoning *db.Message
	Version   int64
}

// Final reports whether the live answer has its final status (see Status).
func (la LiveAnswer) Final() bool { return la.Status != "" && la.Status != db.StatusStreaming }

// LiveWatch signals that an exchange's live answer on this instance changed. Like Subscription it
// coalesces: Ready fires once for any number of changes, and the reader asks Generator.Live for
// the latest state. It is the in-process fast path beside the Notifier, which still carries every
// durable write (and is all that streams on other instances see).
type LiveWatch struct {
	ready, ended chan struct{}
	close        func()
	// end is the answer's end this watch was signalled and has not reported sent (EndSent).
	end atomic.Pointer[endSending]
}

// Ready is signalled when the live answer changed since the last signal.
func (w *LiveWatch) Ready() <-chan struct{} { return w.ready }

// Ended is signalled (besides Ready) when the live answer has reached its final status, so a
// reader that waits out a coalescing window without reading Ready still shows the end at once.
func (w *LiveWatch) Ended() <-chan struct{} { return w.ended }

// EndSent reports that the watch's reader has sent the live answer's end it was signalled
// (Ended), or will not send it: the answer's final write, which waits for the streams here to show
// the end first (at most endSendWait), need not wait for this one. A reader that shows the end
// only once it is stored reports as soon as it is signalled. It does nothing when no end is
// outstanding, so calling it again is harmless.
func (w *LiveWatch) EndSent() {
	if e := w.end.Swap(nil); e != nil {
		e.done()
	}
}

// Close stops the watch (reporting any end outstanding as sent).
func (w *LiveWatch) Close() {
	w.close()
	w.EndSent()
}

// endSendWait bounds how long an answer's final write waits for this instance's streams to send
// its end from memory. The end a person waits for goes out first, without the write's work (in
// Parley and in PostgreSQL, which indexes the text for search) competing for the CPU; a stream
// whose client reads slowly delays the write by no more than this.
const endSendWait = 10 * time.Millisecond

// endSending counts the watches that have an answer's end to send; sent is closed when the last
// one reports (LiveWatch.EndSent).
type endSending struct {
	left atomic.Int32
	sent chan struct{}
}

func (e *endSending) done() {
	if e.left.Add(-1) == 0 {
		close(e.sent)
	}
}

// wait waits until every watch signalled has sent the end, at most endSendWait. e may be nil
// (no watch was signalled).
func (e *endSending) wait() {
	if e == nil {
		return
	}
	timer := time.NewTimer(endSendWait)
	defer timer.Stop()
	select {
	case <-e.sent:
	case <-timer.C:
	}
}

func (w *LiveWatch) signal() {
	select {
	case w.ready <- struct{}{}:
	default:
	}
}

// liveRegistry maps exchange ids to their running answer's writer and to the watches of them.
type liveRegistry struct {
	mu      sync.Mutex
	writers map[int64]*answerWriter
	watches map[int64]map[*LiveWatch]struct{}
}

func (r *liveRegistry) add(exchangeID int64, w *answerWriter) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writers == nil {
		r.writers = map[int64]*answerWriter{}
	}
	r.writers[exchangeID] = w
}

// remove drops w (and only w: a newer answer may have replaced it) and signals the watches, which
// then find no live answer and read the database.
func (r *liveRegistry) remove(exchangeID int64, w *answerWriter) {
	r.mu.Lock()
	if r.writers[exchangeID] == w {
		delete(r.writers, exchangeID)
	}
	r.mu.Unlock()
	r.signal(exchangeID)
}

func (r *liveRegistry) writer(exchangeID int64) *answerWriter {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writers[exchangeID]
}

func (r *liveRegistry) signal(exchangeID int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for w := range r.watches[exchangeID] {
		w.signal()
	}
}

// signalEnd signals the watches of exchangeID that its live answer has ended (LiveWatch.Ended),
// and returns what counts their reports of having sent it (nil for no watch).
func (r *liveRegistry) signalEnd(exchangeID int64) *endSending {
	r.mu.Lock()
	defer r.mu.Unlock()
	watches := r.watches[exchangeID]
	if len(watches) == 0 {
		return nil
	}
	e := &endSending{sent: make(chan struct{})}
	e.left.Store(int32(len(watches)))
	for w := range watches {
		if earlier := w.end.Swap(e); earlier != nil {
			earlier.done() // an earlier answer's end it never reported: this one supersedes it
		}
		w.signal()
		select {
		case w.ended <- struct{}{}:
		default:
		}
	}
	return e
}

// WatchLive starts watching the live answer of exchangeID on this instance until the watch is closed.
func (g *Generator) WatchLive(exchangeID int64) *LiveWatch {
	r := &g.live
	w := &LiveWatch{ready: make(chan struct{}, 1), ended: make(chan struct{}, 1)}
	w.close = func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.watches[exchangeID], w)
		if len(r.watches[exchangeID]) == 0 {
			delete(r.watches, exchangeID)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.watches == nil {
		r.watches = map[int64]map[*LiveWatch]struct{}{}
	}
	if r.watches[exchangeID] == nil {
		r.watches[exchangeID] = map[*LiveWatch]struct{}{}
	}
	r.watches[exchangeID][w] = struct{}{}
	return w
}

// Live returns the running answer of exchangeID as this instance generates it, and false when
// this instance generates none (another instance may: read the database).
func (g *Generator) Live(exchangeID int64) (LiveAnswer, bool) {
	w := g.live.writer(exchangeID)
	if w == nil {
		return LiveAnswer{}, false
	}
	w.signalled.Store(false) // before reading: a later change signals again (signalDelta)
	w.mu.Lock()
	defer w.mu.Unlock()
	la := LiveAnswer{AnswerID: w.job.AnswerID, Content: w.answer.String(), Status: db.StatusStreaming, Version: w.version}
	if w.finalStatus != "" {
		la.Status, la.Metadata = w.finalStatus, w.finalMeta
	}
	if r := w.reasoning; r != nil && r.ID != 0 {
		item := r.Message
		la.Reasoning = &item
	}
	return la, true
}

// storedWait bounds WaitStored: a final write takes milliseconds, unless the database is away
// (then it is retried for minutes, and the caller should get its 503 rather than wait).
const storedWait = 2 * time.Second

// WaitStored waits, at most storedWait and until ctx ends, while this instance is storing the
// final write of exchangeID's answer. Streams here show an answer's end from memory before that
// write lands (LiveAnswer), so a follow-up sent at once waits for it instead of finding the answer
// unfinished (db.ErrBusy). It returns at once when no answer of the exchange is ending here.
func (g *Generator) WaitStored(ctx context.Context, exchangeID int64) {
	w := g.live.writer(exchangeID)
	if w == nil {
		return
	}
	w.mu.Lock()
	ending := w.finalStatus != ""
	w.mu.Unlock()
	if !ending {
		return
	}
	timer := time.NewTimer(storedWait)
	defer timer.Stop()
	select {
	case <-w.stored:
	case <-ctx.Done():
	case <-timer.C:
	}
}
