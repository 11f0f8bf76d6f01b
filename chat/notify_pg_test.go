package chat

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"parley/db"
	"parley/db/dbtest"
)

// instances starts two PostgresNotifiers, "a" and "b", on one fresh database, each with its own
// store, as two Parley instances would.
func instances(t *testing.T) (a, b *PostgresNotifier, store *db.Store) {
	t.Helper()
	url := dbtest.URL(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var stores []*db.Store
	for range 2 {
		s, err := db.Open(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores = append(stores, s)
	}
	a, b = NewPostgresNotifier(url, stores[0], "a", log), NewPostgresNotifier(url, stores[1], "b", log)
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	return a, b, stores[0]
}

// receive publishes (again and again: the listener connects in the background) until sub has
// messageID; it fails after 5 s.
func receive(t *testing.T, sub *Subscription, publish func(), messageID int64) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		publish()
		select {
		case <-sub.Ready():
			for _, id := range sub.Take() {
				if id == messageID {
					return
				}
			}
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("message %d never arrived", messageID)
		}
	}
}

func TestNoticesReachAnotherInstanceThroughPostgresAndLocalOnesAtOnce(t *testing.T) {
	a, b, _ := instances(t)
	local := a.Subscribe(7)
	defer local.Close()
	a.Publish(7, 41)
	if got := local.Take(); len(got) != 1 || got[0] != 41 { // synchronously: no round trip through PostgreSQL
		t.Fatalf("local subscriber has %v right after Publish, want [41]", got)
	}
	remote := b.Subscribe(7)
	defer remote.Close()
	elsewhere := b.Subscribe(8)
	defer elsewhere.Close()
	receive(t, remote, func() { a.Publish(7, 42) }, 42)
	if got := elsewhere.Take(); len(got) != 0 {
		t.Fatalf("a subscriber of another exchange got %v", got)
	}
}

func TestListenerReconnectTellsSubscribersToReadEverythingAgain(t *testing.T) {
	a, b, store := instances(t)
	sub := b.Subscribe(7)
	defer sub.Close()
	receive(t, sub, func() { a.Publish(7, 1) }, 1) // both listeners are connected
	sub.Resynced()                                 // the one when b first listened (see below)
	// Cut the listeners' connections, as a database restart or a network blip would.
	if _, err := store.DB.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN%'`); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for !sub.Resynced() {
		select {
		case <-sub.Ready():
		case <-deadline:
			t.Fatal("no resync within 10 s of the listener's connection being cut")
		}
	}
}

// An instance serves while its listener connects: a subscription made before the listener
// listens may have missed notices, so it is told to read everything again once it does (a page
// stream on a new instance once never saw the next save made on another).
func TestSubscribersFromBeforeTheListenerListensReadEverythingAgain(t *testing.T) {
	url := dbtest.URL(t)
	store, err := db.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	n := NewPostgresNotifier(url, store, "new", slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(n.Close)
	sub := n.Subscribe(7) // before the listener can have connected
	defer sub.Close()
	deadline := time.After(10 * time.Second)
	for !sub.Resynced() {
		select {
		case <-sub.Ready():
		case <-deadline:
			t.Fatal("no resync within 10 s of starting to listen")
		}
	}
}

func TestNoticePayloadsStayUnderPostgresLimit(t *testing.T) {
	var batch []notice
	for i := range 2000 {
		batch = append(batch, notice{exchangeID: 1_000_000_000 + int64(i), messageID: 9_000_000_000 + int64(i)})
	}
	out := payloads("web-1-4182-9f3a01c2", batch)
	if len(out) < 2 {
		t.Fatalf("%d payloads for 2,000 notices, want them split", len(out))
	}
	var pairs int
	for _, p := range out {
		if len(p) > 8000 {
			t.Fatalf("payload of %d bytes, over PostgreSQL's 8,000", len(p))
		}
		from, rest, _ := strings.Cut(p, " ")
		if from != "web-1-4182-9f3a01c2" {
			t.Fatalf("payload names %q, not its instance", from)
		}
		pairs += len(strings.Fields(rest))
	}
	if pairs != len(batch) || !strings.Contains(strings.Join(out, " "), fmt.Sprintf("%d:%d", 1_000_001_999, 9_000_001_999)) {
		t.Fatalf("%d notices in the payloads, want %d", pairs, len(batch))
	}
}

// BenchmarkPublishToALocalStream is the in-process path of a change notice: Publish until the
// subscriber of the same instance has it, for the in-process Broker and for PostgresNotifier (whose
// NOTIFY to other instances is sent by its own goroutine, off this path).
func BenchmarkPublishToALocalStream(b *testing.B) {
	url := dbtest.URL(b)
	store, err := db.Open(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	pg := NewPostgresNotifier(url, store, "bench", slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer pg.Close()
	for _, n := range []struct {
		name string
		Notifier
	}{{"broker", NewBroker()}, {"postgres", pg}} {
		b.Run(n.name, func(b *testing.B) {
			sub := n.Subscribe(1)
			defer sub.Close()
			for i := 0; b.Loop(); i++ {
				n.Publish(1, int64(i%64))
				<-sub.Ready()
				sub.Take()
			}
		})
	}
}
