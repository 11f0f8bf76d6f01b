package chat

import (
	"context"
	"time"
)

// StopTopic is the Notifier key of stop notices: (StopTopic, exchange id) tells every instance that
// a Stop of that exchange's answer was stored (db.Store.RequestStop), so the instance generating it
// renews its leases at once, which reads the request and stops the answer, instead of at its next
// renewal (up to a fifth of the lease later). 0 is neither an exchange's id nor a page's topic.
const StopTopic int64 = 0

// stopWait bounds how long StopAnywhere waits for another instance to store the stopped answer:
// one lease renewal period (a lost notice) plus a second for the final write.
func (g *Generator) stopWait() time.Duration { return g.lease()/5 + time.Second }

// StopAnywhere stops the exchange's running answer, keeping its partial text as cancelled, on
// whichever instance generates it, and returns once it is stored so (or after stopWait, leaving
// the stop request to the next lease renewal). An exchange with no unfinished answer is not an
// error. Errors are the database's.
func (g *Generator) StopAnywhere(ctx context.Context, exchangeID int64) error {
	if g.Stop(exchangeID) {
		return nil
	}
	sub := g.Notifier.Subscribe(exchangeID) // before the request: its final write must not be missed
	defer sub.Close()
	asked, err := g.Store.RequestStop(ctx, exchangeID)
	if err != nil || !asked {
		return err
	}
	g.Notifier.Publish(StopTopic, exchangeID)
	deadline := time.NewTimer(g.stopWait())
	defer deadline.Stop()
	for {
		select {
		case <-sub.Ready():
			sub.Take()
		case <-deadline.C:
			return nil
		case <-ctx.Done():
			return nil
		}
		if busy, err := g.Store.Unfinished(ctx, exchangeID); err == nil && !busy {
			return nil
		}
	}
}

// StopAll stops the answers of the exchanges (moved to the Trash): this instance's at once, other
// instances' through one stored stop request and a stop notice each, without waiting for them.
func (g *Generator) StopAll(ctx context.Context, exchangeIDs []int64) error {
	var elsewhere []int64
	for _, id := range exchangeIDs {
		if !g.Stop(id) {
			elsewhere = append(elsewhere, id)
		}
	}
	if len(elsewhere) == 0 {
		return nil
	}
	if err := g.Store.RequestStops(ctx, elsewhere); err != nil {
		return err
	}
	for _, id := range elsewhere {
		g.Notifier.Publish(StopTopic, id)
	}
	return nil
}

// runsAny reports whether this instance generates an answer of any of the exchanges.
func (g *Generator) runsAny(exchangeIDs []int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, id := range exchangeIDs {
		if _, ok := g.running[id]; ok {
			return true
		}
	}
	return false
}
