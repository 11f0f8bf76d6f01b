package chat

import "sync"

// LiveAnswer is an exchange's running answer as its generator holds it in memory on this
// instance, ahead of the database (which is written on a slower, durable cadence). Content is the
// whole text so far; Version increases with every change, so a reader can tell it has shown this
// state already.
type LiveAnswer struct {
	AnswerID int64
	Content  string
	Version  int64
}

// LiveWatch signals that an exchange's live answer on this instance changed. Like Subscription it
// coalesces: Ready fires once for any number of changes, and the reader asks Generator.Live for
// the latest state. It is the in-process fast path beside the Notifier, which still carries every
// durable write (and is all that streams on other instances see).
type LiveWatch struct {
	ready chan struct{}
	close func()
}

// Ready is signalled when the live answer changed since the last signal.
func (w *LiveWatch) Ready() <-chan struct{} { return w.ready }

// Close stops the watch.
func (w *LiveWatch) Close() { w.close() }

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

// WatchLive starts watching the live answer of exchangeID on this instance until the watch is closed.
func (g *Generator) WatchLive(exchangeID int64) *LiveWatch {
	r := &g.live
	w := &LiveWatch{ready: make(chan struct{}, 1)}
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
	w.mu.Lock()
	defer w.mu.Unlock()
	return LiveAnswer{AnswerID: w.job.AnswerID, Content: w.answer.String(), Version: w.version}, true
}
