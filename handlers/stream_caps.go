package handlers

import (
	"sync"

	"parley/db"
	"parley/fault"
)

// streamCaps bounds the SSE streams one instance holds open: at most max in all and perOwner for
// one account or guest (PARLEY_MAX_STREAMS, PARLEY_MAX_STREAMS_PER_PERSON). A stream beyond
// either is refused with 503 and a message saying which limit it met, before it costs anything.
type streamCaps struct {
	max, perOwner int

	mu      sync.Mutex
	open    int
	byOwner map[db.Owner]int
}

func newStreamCaps(max, perOwner int) *streamCaps {
	return &streamCaps{max: max, perOwner: perOwner, byOwner: map[db.Owner]int{}}
}

// errTooManyStreams and errServerStreamsFull are the refusals (503; the stream retries).
var (
	errTooManyStreams    = fault.New(fault.Unavailable, "You have too many conversations open at once. Close some tabs or windows, then reload this one.")
	errServerStreamsFull = fault.New(fault.Unavailable, "This server is holding as many live conversations as it can. Reload in a moment.")
)

// acquire takes one stream slot for owner, or returns why it cannot; release gives it back.
func (s *streamCaps) acquire(owner db.Owner) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.byOwner[owner] >= s.perOwner:
		return errTooManyStreams
	case s.open >= s.max:
		return errServerStreamsFull
	}
	s.open++
	s.byOwner[owner]++
	return nil
}

func (s *streamCaps) release(owner db.Owner) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open--
	if s.byOwner[owner]--; s.byOwner[owner] <= 0 {
		delete(s.byOwner, owner)
	}
}
