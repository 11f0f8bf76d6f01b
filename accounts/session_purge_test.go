package accounts_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"parley/accounts"
	"parley/db"
	"parley/db/dbtest"
)

// sessionLeft reports whether table still holds the session of token.
func sessionLeft(t *testing.T, store *db.Store, table, token string) bool {
	t.Helper()
	var n int
	if err := store.DB.Get(&n, `SELECT count(*) FROM `+table+` WHERE token_hash = $1`, accounts.HashToken(token)); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// Expired sign-ins and expired guest sessions that own nothing are deleted when the purge starts
// and again at every period, by any number of instances at once; live sessions and an expired
// guest's conversations are kept, and after stop nothing more is deleted.
func TestExpiredSessionsArePurgedPeriodically(t *testing.T) {
	store := dbtest.Open(t)
	ctx := context.Background()
	user, err := store.CreateUser(ctx, "ada@example.com", "Ada", "not a hash")
	if err != nil {
		t.Fatal(err)
	}
	past, future := time.Now().Add(-time.Minute), time.Now().Add(time.Hour)
	signIn := func(token string, expires time.Time) {
		if err := store.CreateUserSession(ctx, accounts.HashToken(token), user.ID, "test", "127.0.0.1", expires); err != nil {
			t.Fatal(err)
		}
	}
	guest := func(token string, expires time.Time) int64 {
		id, err := store.CreateGuestSession(ctx, accounts.HashToken(token), expires)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	signIn("expired", past)
	signIn("live", future)
	guest("expired guest", past)
	guest("live guest", future)
	owner := guest("expired guest with a conversation", past)
	if _, err := store.DB.Exec(`INSERT INTO chat_exchange (guest_session_id, title) VALUES ($1, 'kept')`, owner); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var failures []error
	onError := func(err error) { mu.Lock(); failures = append(failures, err); mu.Unlock() }
	// Two instances on one database.
	stops := []func(){
		(&accounts.Service{Store: store}).PurgeSessions(50*time.Millisecond, onError),
		(&accounts.Service{Store: store}).PurgeSessions(50*time.Millisecond, onError),
	}
	gone := func(table, token string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for sessionLeft(t, store, table, token) {
			if time.Now().After(deadline) {
				t.Fatalf("the %s session %q is still stored after 10 s", table, token)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	gone("user_sessions", "expired")
	gone("guest_sessions", "expired guest")
	signIn("expired later", past) // only a later period deletes it
	gone("user_sessions", "expired later")
	for _, stop := range stops {
		stop()
	}
	signIn("expired after stop", past)
	time.Sleep(200 * time.Millisecond)

	for table, token := range map[string]string{"user_sessions": "live", "guest_sessions": "live guest"} {
		if !sessionLeft(t, store, table, token) {
			t.Errorf("the live %s session was deleted", table)
		}
	}
	if !sessionLeft(t, store, "guest_sessions", "expired guest with a conversation") {
		t.Error("the expired guest session that owns a conversation was deleted (and its conversation with it)")
	}
	if !sessionLeft(t, store, "user_sessions", "expired after stop") {
		t.Error("a session was deleted after the purge stopped")
	}
	if len(failures) > 0 {
		t.Errorf("purges failed: %v", failures)
	}
}
