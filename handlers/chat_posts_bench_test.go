package handlers_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/db/dbtest"
	"parley/handlers/handlerstest"
)

// BenchmarkChatPosts measures how many chat messages one instance takes per second: Parley runs
// as its own process (cmd/parley) with the offline agent at PARLEY_OFFLINE_DELAY=0, and 8 clients
// post follow-ups (htmx POST /sessions/{id}/messages) in turn to 32 conversations for 3 s:
// "one-person", all 8 sharing one person's session cookie (whose sends queue behind each other
// where that person's rate-limit row is taken, in the statement that stores each turn, while it
// commits), and "8-people", each client a person of its own with 4 conversations. Reported:
// posts/s (answered 200, whose answers are generated within the run; target ≥ 250 on a 2-core
// machine), p99-ms and p50-ms of those POSTs (target p99 ≤ 50), and busy/s (409: that
// conversation's previous answer was still running).
//
// "8-people-at-250" offers a steady 250 POSTs/s instead (one every 4 ms, each sent at its time
// whatever the others do, as wrk2 does), spread over 8 people's 128 conversations, after a
// second at that rate to warm up, and reports
// posts/s answered and the p99-ms and p50-ms of the POSTs, each timed from when it was due, so a
// stalled server is not hidden by clients that stop sending (coordinated omission).
func BenchmarkChatPosts(b *testing.B) {
	b.Run("one-person", func(b *testing.B) { benchmarkChatPosts(b, 1, 0) })
	b.Run("8-people", func(b *testing.B) { benchmarkChatPosts(b, 8, 0) })
	b.Run("8-people-at-250", func(b *testing.B) { benchmarkChatPosts(b, 8, 250) })
}

// benchmarkChatPosts is BenchmarkChatPosts with the 8 clients shared among people people, or, with
// a rate, that many POSTs a second offered to 8 people.
func benchmarkChatPosts(b *testing.B, people, rate int) {
	const clients, run = 8, 3 * time.Second
	conversations := 32
	if rate > 0 {
		conversations = 128 // each gets a message every half second at 250/s
	}
	p := handlerstest.StartProcess(b, dbtest.URL(b), "PARLEY_OFFLINE_DELAY=0", "PARLEY_MESSAGES_PER_MINUTE=1000000")
	type person struct {
		client *http.Client
		token  string
	}
	persons := make([]person, people)
	for i := range persons {
		c := p.App().Client(b)
		c.SignUp(fmt.Sprintf("posts%d@example.com", i), "correct horse")
		persons[i] = person{&http.Client{Jar: c.Jar, Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}, c.CSRFToken()}
	}
	// Conversation i belongs to person i % people; client w posts as person w % people, so it
	// cycles through conversations w, w+clients, … which are all that person's.
	ids := make([]int64, conversations)
	for i := range ids {
		who := persons[i%people]
		form := url.Values{"query": {"hello"}, "idempotency_key": {fmt.Sprintf("new%d", i)}, "_csrf": {who.token}}
		req, _ := http.NewRequest(http.MethodPost, p.App().URL+"/chat/messages", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		res, err := who.client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if _, err := fmt.Sscanf(res.Header.Get("HX-Push-Url"), "/sessions/%d/chat", &ids[i]); err != nil {
			b.Fatalf("no conversation: %s", res.Status)
		}
	}
	post := func(who person, exchangeID int64, key string) (int, error) {
		form := url.Values{"query": {"what did I write about gardens"}, "idempotency_key": {key}, "_csrf": {who.token}}
		req, _ := http.NewRequest(http.MethodPost, p.App().URL+fmt.Sprintf("/sessions/%d/messages", exchangeID), strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		res, err := who.client.Do(req)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, nil
	}
	time.Sleep(time.Second) // the first answers finish

	for i := 0; i < b.N; i++ {
		var ok, busy atomic.Int64
		var mu sync.Mutex
		var latencies []time.Duration
		var failure atomic.Value
		var wg sync.WaitGroup
		end := time.Now().Add(run)
		if rate > 0 {
			// The first second warms the instance up at the same rate (HTTP connections, the
			// database pool's connections and their prepared statements) and is not counted.
			every := time.Second / time.Duration(rate)
			counted := time.Now().Add(time.Second)
			start, end := time.Now(), counted.Add(run)
			for n := 0; ; n++ {
				due := start.Add(time.Duration(n) * every)
				if !due.Before(end) {
					break
				}
				time.Sleep(time.Until(due))
				wg.Add(1)
				go func() {
					defer wg.Done()
					status, err := post(persons[n%people], ids[n%conversations], fmt.Sprintf("r%d-n%d", i, n))
					took := time.Since(due)
					switch {
					case err != nil:
						failure.Store(err.Error())
					case due.Before(counted):
					case status == http.StatusOK:
						ok.Add(1)
						mu.Lock()
						latencies = append(latencies, took)
						mu.Unlock()
					case status == http.StatusConflict:
						busy.Add(1)
					default:
						failure.Store(fmt.Sprintf("status %d", status))
					}
				}()
			}
		} else {
			for w := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var mine []time.Duration
					for n := 0; time.Now().Before(end); n++ {
						id := ids[(w+n*clients)%conversations]
						started := time.Now()
						status, err := post(persons[w%people], id, fmt.Sprintf("r%d-w%d-n%d", i, w, n))
						took := time.Since(started)
						switch {
						case err != nil:
							failure.Store(err.Error())
							return
						case status == http.StatusOK:
							ok.Add(1)
							mine = append(mine, took)
						case status == http.StatusConflict:
							busy.Add(1)
						default:
							failure.Store(fmt.Sprintf("status %d", status))
							return
						}
					}
					mu.Lock()
					latencies = append(latencies, mine...)
					mu.Unlock()
				}()
			}
		}
		wg.Wait()
		if f := failure.Load(); f != nil {
			b.Fatalf("a POST failed: %v", f)
		}
		b.ReportMetric(float64(ok.Load())/run.Seconds(), "posts/s")
		b.ReportMetric(float64(busy.Load())/run.Seconds(), "busy/s")
		b.ReportMetric(ms(percentile(latencies, 99)), "p99-ms")
		b.ReportMetric(ms(percentile(latencies, 50)), "p50-ms")
		time.Sleep(time.Second) // the last answers finish before the next round
	}
}
