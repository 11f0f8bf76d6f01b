package chat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strconv"
	"time"

	"parley/db"
)

// DefaultLease is the lease time when Generator.Lease is 0: an answer whose instance has not
// renewed it for 10 s (renewals every 2 s) is taken for abandoned.
const DefaultLease = 10 * time.Second

// NewInstanceID names this process for the answers it generates: host, pid and 4 random bytes
// (e.g. "web-1-4182-9f3a01c2"), unique among instances sharing a database.
func NewInstanceID() string {
	host, _ := os.Hostname()
	if host == "" {
		host = "parley"
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return host + "-" + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b)
}

func (g *Generator) lease() time.Duration {
	if g.Lease > 0 {
		return g.Lease
	}
	return DefaultLease
}

// KeepLeases starts the heartbeat of this instance's answers, which also carries Stop requests
// made on other instances (at once when their stop notice arrives, see StopTopic), and the reaper that marks interrupted the answers whose lease expired
// (another instance died, or this one before a restart). It reaps once at once. Shutdown stops it.
func (g *Generator) KeepLeases() {
	g.mu.Lock()
	if g.leaseStop != nil {
		g.mu.Unlock()
		return
	}
	stop, done := make(chan struct{}), make(chan struct{})
	g.leaseStop, g.leaseDone = stop, done
	g.mu.Unlock()
	stops := g.Notifier.Subscribe(StopTopic)
	go func() {
		defer close(done)
		defer stops.Close()
		tick := time.NewTicker(g.lease() / 5)
		defer tick.Stop()
		g.renew()
		g.reap()
		for {
			select {
			case <-tick.C:
				g.renew()
				g.reap()
			case <-stops.Ready(): // a Stop stored on another instance: act on it now
				if g.runsAny(stops.Take()) {
					g.renew()
				}
			case <-stop:
				return
			}
		}
	}()
}

func (g *Generator) stopLeases() {
	g.mu.Lock()
	stop, done := g.leaseStop, g.leaseDone
	g.leaseStop = nil
	g.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

// renew extends the leases of held answers and stops those whose Stop was requested elsewhere.
func (g *Generator) renew() {
	g.mu.Lock()
	held := make([]db.HeldAnswer, 0, len(g.held))
	for id, r := range g.held {
		held = append(held, db.HeldAnswer{ID: id, Holder: r.holder})
	}
	g.mu.Unlock()
	if len(held) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.lease()/2)
	defer cancel()
	stop, err := g.Store.RenewLeases(ctx, held, g.lease())
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil {
		g.dbFailedAt = time.Now()
		g.Log.Warn("renewing answer leases", "error", err)
		return
	}
	for _, id := range stop {
		if r, ok := g.held[id]; ok {
			r.cancel(errStopped)
		}
	}
}

// reap marks interrupted the answers whose lease expired, and tells their streams. It waits a
// lease after this instance last failed to reach the database: an outage longer than the lease
// expires the leases of live instances too, which renew them within a fifth of the lease once the
// database is back (their answers' text, kept in memory meanwhile, must not be interrupted).
// While it waits it pings the database each time, so the wait counts from the outage's end.
func (g *Generator) reap() {
	ctx, cancel := context.WithTimeout(context.Background(), g.lease()/2)
	defer cancel()
	g.mu.Lock()
	recovering := time.Since(g.dbFailedAt) < g.lease()
	g.mu.Unlock()
	if recovering {
		if g.Store.Ping(ctx) != nil { // still away: the wait starts again
			g.dbFailed()
		}
		return
	}
	reaped, err := g.Store.ReapExpired(ctx, g.lease())
	if err != nil {
		g.dbFailed()
		if !db.Unreachable(err) {
			g.Log.Error("reaping abandoned answers", "error", err)
		}
		return
	}
	if len(reaped) > 0 {
		g.Log.Warn("answers abandoned by a stopped instance marked interrupted", "count", len(reaped))
	}
	for _, r := range reaped {
		g.Notifier.Publish(r.ExchangeID, r.ID)
	}
}

// dbFailed records that this instance just failed to reach the database (see reap).
func (g *Generator) dbFailed() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.dbFailedAt = time.Now()
}

// untilReachable calls op with ctx until it succeeds, fails for another reason than an unreachable
// database (db.Unreachable), or until passes (then its last error is returned), waiting 50 ms,
// 100 ms, … up to 1 s between attempts. Shutdown's deadline ends the waiting at once. Each attempt
// gets its own 5 s bound, so a database that hangs instead of refusing is tried again too.
func (g *Generator) untilReachable(ctx context.Context, until time.Time, op func(ctx context.Context) error) error {
	wait := 50 * time.Millisecond
	for {
		attempt, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := op(attempt)
		cancel()
		if err == nil || !db.Unreachable(err) || errors.Is(err, db.ErrLeaseLost) || time.Now().Add(wait).After(until) {
			return err
		}
		g.mu.Lock()
		abandon := g.abandonChan()
		g.mu.Unlock()
		select {
		case <-time.After(wait):
		case <-abandon:
			return err
		}
		wait = min(2*wait, time.Second)
	}
}
