// Package chat runs conversations: it generates answers in server goroutines that outlive the
// browser request, persists their progress, and tells open streams what changed.
package chat

import "sync"

// Notifier carries "message M of exchange E changed" from generation to the streams showing E.
// Streams re-read the message from the database, so a notice carries ids only. The in-process
// Broker serves one instance; PostgresNotifier (notify_pg.go) adds PostgreSQL LISTEN/NOTIFY so
// several instances serve one conversation.
type Notifier interface {
	// Publish tells every subscriber of exchangeID that messageID changed. It never blocks.
	Publish(exchangeID, messageID int64)
	// Subscribe starts receiving notices for exchangeID until the Subscription is closed.
	Subscribe(exchangeID int64) *Subscription
}

// BranchChanged is the message id of the notice that the branch on screen of an exchange changed
// (an edit, a regenerate, a switch of versions): messages left it, which no notice of a changed
// message can say, so each subscriber is told to re-read the whole exchange (Resynced), as after
// a listener reconnect. Message ids are positive, so no message has it.
const BranchChanged int64 = 0

// PageTopic is the Notifier key of page pageID's notices: −pageID, which no exchange has (their
// ids are positive). A page notice's message id is the page's new version; the editors' streams
// (GET /pages/{id}/events) pass it on and the editors read the text themselves.
func PageTopic(pageID int64) int64 { return -pageID }

// Subscription receives the ids of changed messages of one exchange. Notices coalesce: Ready fires
// once for any number of publishes, and Take returns each changed id once, so a slow reader never
// blocks a publisher and never loses the last change. When notices may have been lost (the
// PostgreSQL listener reconnected), Ready fires and Resynced reports true once: the reader must
// re-read everything it shows.
type Subscription struct {
	ready   chan struct{}
	mu      sync.Mutex
	pending []int64
	resync  bool
	close   func()
}

// Ready is signalled when Take has something.
func (s *Subscription) Ready() <-chan struct{} { return s.ready }

// Take returns the changed message ids since the last Take, in first-change order, without repeats.
func (s *Subscription) Take() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.pending
	s.pending = nil
	return out
}

// Resynced reports, once, that notices may have been lost since the last call: the reader must
// re-read the whole exchange rather than only the ids Take returns.
func (s *Subscription) Resynced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.resync
	s.resync = false
	return r
}

// Close stops the subscription.
func (s *Subscription) Close() { s.close() }

func (s *Subscription) add(id int64) {
	s.mu.Lock()
	for _, p := range s.pending {
		if p == id {
			s.mu.Unlock()
			return
		}
	}
	s.pending = append(s.pending, id)
	s.mu.Unlock()
	s.signal()
}

func (s *Subscription) markResync() {
	s.mu.Lock()
	s.resync = true
	s.mu.Unlock()
	s.signal()
}

func (s *Subscription) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// Broker is the in-process Notifier.
type Broker struct {
	mu   sync.Mutex
	subs map[int64]map[*Subscription]struct{}
}

// NewBroker returns an empty in-process Notifier.
func NewBroker() *Broker { return &Broker{subs: map[int64]map[*Subscription]struct{}{}} }

// Publish implements Notifier.
func (b *Broker) Publish(exchangeID, messageID int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs[exchangeID] {
		if messageID == BranchChanged && exchangeID > 0 {
			s.markResync()
		} else {
			s.add(messageID)
		}
	}
}

// Resync tells every subscriber that notices may have been lost (see Subscription.Resynced).
func (b *Broker) Resync() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, subs := range b.subs {
		for s := range subs {
			s.markResync()
		}
	}
}

// Subscribe implements Notifier.
func (b *Broker) Subscribe(exchangeID int64) *Subscription {
	s := &Subscription{ready: make(chan struct{}, 1)}
	s.close = func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.subs[exchangeID], s)
		if len(b.subs[exchangeID]) == 0 {
			delete(b.subs, exchangeID)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs[exchangeID] == nil {
		b.subs[exchangeID] = map[*Subscription]struct{}{}
	}
	b.subs[exchangeID][s] = struct{}{}
	return s
}
