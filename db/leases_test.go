package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"parley/db"
	"parley/db/dbtest"
)

// startTurn stores a turn of a new user's and returns the store, the owner and the turn.
func startTurn(t *testing.T, store *db.Store, email string) (db.Owner, db.Turn) {
	t.Helper()
	ctx := context.Background()
	u, err := store.CreateUser(ctx, email, "A", "hash")
	if err != nil {
		t.Fatal(err)
	}
	turn, err := store.StartTurn(ctx, db.NewTurn{UserID: u.ID, Title: "t", Query: "q"})
	if err != nil {
		t.Fatal(err)
	}
	return db.Owner{UserID: u.ID}, turn
}

func TestReapMarksOnlyAnswersWhoseLeaseExpiredKeepingTheirText(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	_, live := startTurn(t, store, "live@example.com")
	_, dead := startTurn(t, store, "dead@example.com")
	_, fresh := startTurn(t, store, "fresh@example.com") // pending, not claimed yet
	if err := store.SetAnswer(db.WithLease(ctx, db.Lease{Holder: "a/1", TTL: time.Hour}), live.Assistant.ID, "live text", db.StatusStreaming, nil); err != nil {
		t.Fatal(err)
	}
	if err := store.SetAnswer(db.WithLease(ctx, db.Lease{Holder: "b/1", TTL: time.Millisecond}), dead.Assistant.ID, "half an ans", db.StatusStreaming, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	reaped, err := store.ReapExpired(ctx, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(reaped) != 1 || reaped[0].ID != dead.Assistant.ID || reaped[0].ExchangeID != dead.Exchange.ID {
		t.Fatalf("reaped %+v, want only answer %d", reaped, dead.Assistant.ID)
	}
	for _, c := range []struct {
		turn         db.Turn
		status, text string
	}{{live, db.StatusStreaming, "live text"}, {dead, db.StatusInterrupted, "half an ans"}, {fresh, db.StatusPending, ""}} {
		m, err := store.MessageByID(ctx, c.turn.Exchange.ID, c.turn.Assistant.ID)
		if err != nil || m.Status != c.status || m.Content != c.text {
			t.Errorf("answer %d: %s %q (%v), want %s %q", m.ID, m.Status, m.Content, err, c.status, c.text)
		}
	}
	// An unclaimed pending answer older than the lease time was left by an instance that died
	// between storing the turn and starting to generate it.
	reaped, err = store.ReapExpired(ctx, 0)
	if err != nil || len(reaped) != 1 || reaped[0].ID != fresh.Assistant.ID {
		t.Fatalf("reaping with no grace: %+v, %v; want the unclaimed answer %d", reaped, err, fresh.Assistant.ID)
	}
}

func TestLeasedWriteIsRefusedOnceAnotherGenerationHoldsTheAnswer(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	_, turn := startTurn(t, store, "a@example.com")
	mine := db.WithLease(ctx, db.Lease{Holder: "a/1", TTL: time.Hour})
	if err := store.SetAnswer(mine, turn.Assistant.ID, "mine", db.StatusStreaming, nil); err != nil {
		t.Fatal(err)
	}
	theirs := db.WithLease(ctx, db.Lease{Holder: "b/7", TTL: time.Hour})
	if err := store.SetAnswer(theirs, turn.Assistant.ID, "theirs", db.StatusComplete, nil); !errors.Is(err, db.ErrLeaseLost) {
		t.Fatalf("write under another lease: %v, want ErrLeaseLost", err)
	}
	m, _ := store.MessageByID(ctx, turn.Exchange.ID, turn.Assistant.ID)
	if m.Content != "mine" || m.Status != db.StatusStreaming {
		t.Fatalf("answer is %s %q after a refused write", m.Status, m.Content)
	}
}

func TestStopRequestedOnAnyInstanceReachesTheLeaseHolder(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	_, turn := startTurn(t, store, "a@example.com")
	held := []db.HeldAnswer{{ID: turn.Assistant.ID, Holder: "a/1"}}
	if err := store.SetAnswer(db.WithLease(ctx, db.Lease{Holder: "a/1", TTL: time.Hour}), turn.Assistant.ID, "", db.StatusStreaming, nil); err != nil {
		t.Fatal(err)
	}
	if stop, err := store.RenewLeases(ctx, held, time.Hour); err != nil || len(stop) != 0 {
		t.Fatalf("renew before any stop: %v, %v", stop, err)
	}
	if ok, err := store.RequestStop(ctx, turn.Exchange.ID); err != nil || !ok {
		t.Fatalf("RequestStop = %v, %v", ok, err)
	}
	stop, err := store.RenewLeases(ctx, held, time.Hour)
	if err != nil || len(stop) != 1 || stop[0] != turn.Assistant.ID {
		t.Fatalf("renew after a stop request: %v, %v; want [%d]", stop, err, turn.Assistant.ID)
	}
	// Another generation's renewal does not take the answer over.
	if stop, err := store.RenewLeases(ctx, []db.HeldAnswer{{ID: turn.Assistant.ID, Holder: "b/1"}}, time.Hour); err != nil || len(stop) != 0 {
		t.Fatalf("another holder's renewal: %v, %v", stop, err)
	}
}

func TestRetryWhileAnAnswerIsBeingWrittenIsBusyNotMissing(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	owner, turn := startTurn(t, store, "a@example.com")
	if err := store.SetAnswer(ctx, turn.Assistant.ID, "half", db.StatusStreaming, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := store.RestartOwnedAnswer(ctx, owner, turn.Exchange.ID, turn.Assistant.ID); !errors.Is(err, db.ErrBusy) {
		t.Fatalf("retry of a streaming answer: %v, want ErrBusy", err)
	}
	stranger := db.Owner{UserID: owner.UserID + 1000}
	if _, err := store.RestartOwnedAnswer(ctx, stranger, turn.Exchange.ID, turn.Assistant.ID); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("someone else's retry: %v, want ErrNotFound", err)
	}
}

func TestAGenerationThatLostItsAnswerNeverWritesTheRetry(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	owner, turn := startTurn(t, store, "a@example.com")
	stale := db.WithLease(ctx, db.Lease{Holder: "a/1", TTL: time.Millisecond})
	if err := store.SetAnswer(stale, turn.Assistant.ID, "partial", db.StatusStreaming, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // a/1 stops renewing (say, the database was away): its lease expires
	if _, err := store.ReapExpired(ctx, time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := store.RestartOwnedAnswer(ctx, owner, turn.Exchange.ID, turn.Assistant.ID); err != nil {
		t.Fatal(err) // the person pressed Retry: the answer is pending again, unclaimed
	}
	if err := store.SetAnswer(db.WithClaimedLease(stale), turn.Assistant.ID, "stale end", db.StatusComplete, nil); !errors.Is(err, db.ErrLeaseLost) {
		t.Fatalf("the old generation's final write: %v, want ErrLeaseLost", err)
	}
	retry := db.WithLease(ctx, db.Lease{Holder: "b/1", TTL: time.Hour})
	if err := store.SetAnswer(retry, turn.Assistant.ID, "fresh", db.StatusStreaming, nil); err != nil {
		t.Fatalf("the retry's first write: %v", err)
	}
	if m, _ := store.MessageByID(ctx, turn.Exchange.ID, turn.Assistant.ID); m.Content != "fresh" {
		t.Fatalf("answer is %q, want the retry's text", m.Content)
	}
}
