package handlers

import (
	"bytes"
	"context"
	"hash/maphash"

	"github.com/a-h/templ"

	"parley/views"
)

// shownMessages is what one stream's client holds: for each message the stream has shown, the
// fingerprint of the message's markup as last sent (views.MessageItem as an out-of-band
// replacement), and the busy flag last sent. A change whose markup the client already has is not
// sent again: a notice read only after a later write had landed, a notice of a change the snapshot
// already held, a write that changed nothing shown. So a finished answer is rendered in the browser
// once, and nothing a person (or a test) does to it is undone by the same markup arriving again.
type shownMessages struct {
	items map[int64]uint64
	busy  bool
}

func newShownMessages() *shownMessages { return &shownMessages{items: map[int64]uint64{}} }

// has reports whether the stream has shown the message.
func (s *shownMessages) has(id int64) bool {
	_, ok := s.items[id]
	return ok
}

// fingerprintSeed keys the markup fingerprints (one per process; they are never stored).
var fingerprintSeed = maphash.MakeSeed()

// renderItem renders v as an out-of-band replacement into buf (which it resets) and returns the
// markup's fingerprint.
func renderItem(ctx context.Context, buf *bytes.Buffer, v views.MessageView, exchangeID int64) (uint64, error) {
	buf.Reset()
	v.OOB = true
	if err := views.MessageItem(v, exchangeID).Render(ctx, buf); err != nil {
		return 0, err
	}
	return maphash.Bytes(fingerprintSeed, buf.Bytes()), nil
}

// remember records the snapshot's messages as shown, with their fingerprints.
func (s *shownMessages) remember(ctx context.Context, pane views.ChatPane) error {
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	for _, m := range pane.Messages {
		fp, err := renderItem(ctx, buf, m, pane.ExchangeID)
		if err != nil {
			return err
		}
		s.items[m.ID] = fp
	}
	s.busy = pane.Busy
	return nil
}
