package db_test

import (
	"context"
	"testing"
	"time"

	"parley/db"
	"parley/db/dbtest"
)

// A bucket lets Burst requests through at once, then refuses saying how long until the next one
// fits (about one interval), and a refused request takes nothing; keys are independent; the
// checks of one call answer in their order.
func TestTakeRatesIsATokenBucketPerKey(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	ada := db.RateCheck{Key: "messages:ada", Every: 20 * time.Second, Burst: 3}
	bob := db.RateCheck{Key: "messages:bob", Every: 20 * time.Second, Burst: 2}
	for i := range 3 {
		r, err := store.TakeRates(ctx, ada)
		if err != nil {
			t.Fatal(err)
		}
		if !r[0].Allowed || r[0].Wait != 0 {
			t.Fatalf("request %d of a burst of 3: %+v, want allowed", i+1, r[0])
		}
	}
	for i := range 3 { // refused ones take nothing: the wait does not grow
		r, err := store.TakeRates(ctx, ada, bob)
		if err != nil {
			t.Fatal(err)
		}
		if r[0].Allowed || r[0].Wait < 19*time.Second || r[0].Wait > 20*time.Second {
			t.Fatalf("refusal %d: %+v, want refused with a wait of about 20 s", i+1, r[0])
		}
		if want := i < 2; r[1].Allowed != want {
			t.Fatalf("bob's request %d: %+v, want allowed %v (his own bucket of 2)", i+1, r[1], want)
		}
	}
}

// ForgetRates deletes only buckets that are full again; a deleted bucket starts full.
func TestForgetRatesKeepsBucketsThatStillHoldState(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Open(t)
	quick := db.RateCheck{Key: "signin:quick", Every: 10 * time.Millisecond, Burst: 1}
	slow := db.RateCheck{Key: "signin:slow", Every: time.Hour, Burst: 1}
	if _, err := store.TakeRates(ctx, quick, slow); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	n, err := store.ForgetRates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("forgot %d buckets, want 1 (the one full again)", n)
	}
	r, err := store.TakeRates(ctx, slow)
	if err != nil {
		t.Fatal(err)
	}
	if r[0].Allowed {
		t.Fatal("the hour-long bucket was forgotten: its second request was allowed")
	}
}
