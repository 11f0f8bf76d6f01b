package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"parley/db"
	"parley/db/dbtest"
)

// A follow-up over its NewTurn.Rate limit stores nothing and is a *RateLimitedError saying how long
// until the next message fits; a refused turn takes nothing from the bucket (the wait does not
// grow), and its idempotency key stays free for the message once it is sent again.
func TestRefusedFollowUpStoresNothingAndTakesNothing(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	owner, first := startTurn(t, store, "limited@example.com")
	finish(t, store, first)
	rate := db.RateCheck{Key: "messages:limited", Every: 20 * time.Second, Burst: 1}
	in := db.NewTurn{UserID: owner.UserID, ExchangeID: first.Exchange.ID, Query: "two", IdempotencyKey: "k2", Rate: &rate}
	second, err := store.StartTurn(ctx, in)
	if err != nil || second.Replayed {
		t.Fatalf("first follow-up within the limit: %+v %v", second, err)
	}
	finish(t, store, second)
	before := messages(t, store, first.Exchange.ID)
	in.Query, in.IdempotencyKey = "three", "k3"
	for i := range 3 {
		_, err := store.StartTurn(ctx, in)
		var limited *db.RateLimitedError
		if !errors.As(err, &limited) {
			t.Fatalf("refusal %d: %v, want *RateLimitedError", i+1, err)
		}
		if limited.Wait < 19*time.Second || limited.Wait > 20*time.Second {
			t.Fatalf("refusal %d waits %v, want about 20 s (refusals take nothing)", i+1, limited.Wait)
		}
	}
	if after := messages(t, store, first.Exchange.ID); after != before {
		t.Fatalf("%d messages after the refusals, want %d: a refused turn stored something", after, before)
	}
	in.Rate = nil // the limit is met again
	if third, err := store.StartTurn(ctx, in); err != nil || third.Replayed || third.User.Content != "three" {
		t.Fatalf("the refused message sent again: %+v %v, want it stored", third, err)
	}
}

// A follow-up the one statement cannot store (here: busy, its answer unfinished) goes on to the
// transaction having taken its request once: with a burst of 3, a stored follow-up, a busy one
// and another stored one use it up, and the fourth is refused.
func TestFollowUpLeftToTheTransactionTakesItsRequestOnce(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	owner, first := startTurn(t, store, "busy@example.com")
	finish(t, store, first)
	rate := db.RateCheck{Key: "messages:busy", Every: time.Minute, Burst: 3}
	send := func(key string) (db.Turn, error) {
		return store.StartTurn(ctx, db.NewTurn{UserID: owner.UserID, ExchangeID: first.Exchange.ID, Query: key, IdempotencyKey: key, Rate: &rate})
	}
	stored, err := send("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := send("b"); !errors.Is(err, db.ErrBusy) {
		t.Fatalf("a follow-up while the answer is pending: %v, want ErrBusy", err)
	}
	finish(t, store, stored)
	if _, err := send("c"); err != nil {
		t.Fatalf("third request of a burst of 3 (the busy one took one): %v", err)
	}
	var limited *db.RateLimitedError
	if _, err := send("d"); !errors.As(err, &limited) {
		t.Fatalf("fourth request of a burst of 3: %v, want *RateLimitedError", err)
	}
}

// A turn that starts a new exchange takes NewTurn.Rate too (with TakeRates, before its
// transaction), and a refused one stores no exchange.
func TestRefusedFirstMessageStoresNoExchange(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	u, err := store.CreateUser(ctx, "first@example.com", "A", "hash")
	if err != nil {
		t.Fatal(err)
	}
	rate := db.RateCheck{Key: "messages:first", Every: time.Minute, Burst: 1}
	if _, err := store.StartTurn(ctx, db.NewTurn{UserID: u.ID, Title: "t", Query: "one", Rate: &rate}); err != nil {
		t.Fatal(err)
	}
	var limited *db.RateLimitedError
	if _, err := store.StartTurn(ctx, db.NewTurn{UserID: u.ID, Title: "t", Query: "two", Rate: &rate}); !errors.As(err, &limited) || limited.Wait <= 0 {
		t.Fatalf("second first message over the limit: %v, want *RateLimitedError with a wait", err)
	}
	var exchanges int
	if err := store.DB.Get(&exchanges, `SELECT count(*) FROM chat_exchange WHERE user_id = $1`, u.ID); err != nil || exchanges != 1 {
		t.Fatalf("%d exchanges (%v), want 1", exchanges, err)
	}
}

// finish marks the turn's answer complete, so the exchange takes a new message.
func finish(t *testing.T, store *db.Store, turn db.Turn) {
	t.Helper()
	if err := store.SetAnswer(context.Background(), turn.Assistant.ID, "done", db.StatusComplete, nil); err != nil {
		t.Fatal(err)
	}
}

// messages counts the exchange's stored messages.
func messages(t *testing.T, store *db.Store, exchangeID int64) int {
	t.Helper()
	var n int
	if err := store.DB.Get(&n, `SELECT count(*) FROM chat_message WHERE exchange_id = $1`, exchangeID); err != nil {
		t.Fatal(err)
	}
	return n
}
