package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"parley/db"
	"parley/db/dbtest"
	"parley/handlers/handlerstest"
)

// faultRounds is how many kill -9 rounds TestKillNineNeverLosesNorDuplicatesMessages runs: 10 in
// `make test`, PARLEY_FAULT_ROUNDS (100 in `make faults`) when set.
func faultRounds(t *testing.T) int {
	if s := os.Getenv("PARLEY_FAULT_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("PARLEY_FAULT_ROUNDS=%q is not a positive number", s)
		}
		return n
	}
	return 10
}

// TestKillNineNeverLosesNorDuplicatesMessages kills the instance with SIGKILL while it handles a
// chat POST or generates its answer, starts a new instance, and sends the same message again
// (same idempotency key) as a browser whose request failed would, until it is accepted. After all
// rounds each message is stored exactly once and every answer has ended.
func TestKillNineNeverLosesNorDuplicatesMessages(t *testing.T) {
	rounds := faultRounds(t)
	dsn := dbtest.URL(t)
	store, err := db.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	env := []string{"PARLEY_OFFLINE_DELAY=5ms", "PARLEY_LEASE_TIMEOUT=1s"}
	jar, _ := cookiejar.New(nil)
	client := func(p *handlerstest.Process) *handlerstest.Client {
		c := p.App().Client(t)
		c.Jar = jar
		return c
	}
	p := handlerstest.StartProcess(t, dsn, env...)
	c := client(p)
	c.SignUp("ada@example.com", "correct horse")
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"start"}, "idempotency_key": {"start"}}))
	path := fmt.Sprintf("/sessions/%d/messages", id)

	for round := range rounds {
		key := fmt.Sprint("round", round)
		form := url.Values{"query": {"message " + key}, "idempotency_key": {key}}
		sent := make(chan struct{})
		go func() {
			defer close(sent)
			send(c, path, form) // may be cut by the kill
		}()
		time.Sleep(time.Duration(round*37%200) * time.Millisecond) // during the POST, or during the answer
		p.Kill()
		<-sent
		p = handlerstest.StartProcess(t, dsn, env...)
		c = client(p)
		deadline := time.Now().Add(15 * time.Second)
		for status := send(c, path, form); status != http.StatusOK; status = send(c, path, form) {
			// 409: the killed instance's answer waits for its lease to expire; 503/0: not ready.
			if time.Now().After(deadline) || status != http.StatusConflict && status != http.StatusServiceUnavailable && status != 0 {
				t.Fatalf("round %d: sending again answered %d", round, status)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	waitFor(t, 15*time.Second, "every answer has ended", func() bool {
		var n int
		_ = store.DB.Get(&n, `SELECT count(*) FROM chat_message WHERE exchange_id = $1 AND status IN ('pending', 'streaming')`, id)
		return n == 0
	})
	var stored []struct {
		Key   string `db:"idempotency_key"`
		Count int    `db:"n"`
	}
	if err := store.DB.Select(&stored, `SELECT idempotency_key, count(*) AS n FROM chat_message
		WHERE exchange_id = $1 AND role = 'user' GROUP BY idempotency_key`, id); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, s := range stored {
		got[s.Key] = s.Count
	}
	for round := range rounds {
		if n := got[fmt.Sprint("round", round)]; n != 1 {
			t.Errorf("round %d's message is stored %d times, want once", round, n)
		}
	}
	if len(got) != rounds+1 {
		t.Errorf("%d distinct user messages, want %d", len(got), rounds+1)
	}
	var statuses []string
	_ = store.DB.Select(&statuses, `SELECT DISTINCT status FROM chat_message WHERE exchange_id = $1 AND role = 'assistant'`, id)
	t.Logf("%d rounds; answers ended as %s", rounds, strings.Join(statuses, ", "))
}

// send posts a chat form as htmx does and returns the status, 0 when the request failed.
func send(c *handlerstest.Client, path string, form url.Values) int {
	form = url.Values{"query": form["query"], "idempotency_key": form["idempotency_key"], "_csrf": {csrfOf(c)}}
	req, _ := http.NewRequest(http.MethodPost, c.URL(path), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	res, err := c.Client.Do(req)
	if err != nil {
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}

// csrfOf is the client's CSRF cookie (set at sign-up; every instance accepts it).
func csrfOf(c *handlerstest.Client) string {
	u, _ := url.Parse(c.URL("/"))
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == "parley_csrf" {
			return ck.Value
		}
	}
	return ""
}
