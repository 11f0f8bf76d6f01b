package handlers_test

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/db/dbtest"
	"parley/handlers/handlerstest"
)

// idleStreams is how many idle conversation streams BenchmarkIdleStreams holds open on one
// instance; the target is that they fit in 256 MB of RSS.
const idleStreams = 5000

// BenchmarkIdleStreams measures what idle SSE streams cost one instance: Parley runs as its own
// process (cmd/parley), one person opens idleStreams streams on a conversation over real TCP
// with their session cookie, each reads its snapshot and then stays idle. Reported: rss-mb (the
// process's RSS with every stream open; target ≤ 256), base-rss-mb (before the streams) and
// kB-per-stream (the difference per stream).
func BenchmarkIdleStreams(b *testing.B) {
	p := handlerstest.StartProcess(b, dbtest.URL(b), "PARLEY_OFFLINE_DELAY=0",
		fmt.Sprintf("PARLEY_MAX_STREAMS=%d", idleStreams), fmt.Sprintf("PARLEY_MAX_STREAMS_PER_PERSON=%d", idleStreams))
	c := p.App().Client(b)
	c.SignUp("streams@example.com", "correct horse")
	var id int64
	first := htmxPost(c, "/chat/messages", url.Values{"query": {"hello"}, "idempotency_key": {"a"}})
	if _, err := fmt.Sscanf(first.Header.Get("HX-Push-Url"), "/sessions/%d/chat", &id); err != nil {
		b.Fatalf("no conversation: %d %s", first.Status, first.Body)
	}
	u, _ := url.Parse(p.App().URL)
	var cookies []string
	for _, k := range c.Jar.Cookies(u) {
		cookies = append(cookies, k.Name+"="+k.Value)
	}
	request := fmt.Sprintf("GET /sessions/%d/events HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nCookie: %s\r\n\r\n", id, u.Host, strings.Join(cookies, "; "))

	for i := 0; i < b.N; i++ {
		time.Sleep(time.Second) // let the answer finish and the heap settle
		base := p.RSS(b)
		conns := make([]net.Conn, idleStreams)
		var wg sync.WaitGroup
		errs := make(chan error, idleStreams)
		work := make(chan int)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := range work {
					conn, err := openIdleStream(u.Host, request)
					if err != nil {
						errs <- fmt.Errorf("stream %d: %w", n, err)
						return
					}
					conns[n] = conn
				}
			}()
		}
		for n := range idleStreams {
			work <- n
		}
		close(work)
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		time.Sleep(2 * time.Second) // idle: what a stream costs between heartbeats
		rss := p.RSS(b)
		if m := c.Get("/metrics"); m.Status == 200 { // where the memory is, for whoever reads -v
			for _, line := range strings.Split(m.Body, "\n") {
				for _, name := range []string{"go_goroutines ", "go_memstats_heap_inuse_bytes ", "go_memstats_stack_inuse_bytes ", "go_memstats_next_gc_bytes "} {
					if strings.HasPrefix(line, name) {
						b.Log(line)
					}
				}
			}
		}
		b.ReportMetric(float64(rss)/(1<<20), "rss-mb")
		b.ReportMetric(float64(base)/(1<<20), "base-rss-mb")
		b.ReportMetric(float64(rss-base)/idleStreams/1024, "kB-per-stream")
		for _, conn := range conns {
			conn.Close()
		}
		runtime.GC()
	}
}

// openIdleStream sends request on a new connection and reads the answer up to the end of its
// first event (the snapshot).
func openIdleStream(host, request string) (net.Conn, error) {
	conn, err := net.Dial("tcp", host)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write([]byte(request)); err != nil {
		conn.Close()
		return nil, err
	}
	_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	r := bufio.NewReader(conn)
	status, err := r.ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		conn.Close()
		return nil, fmt.Errorf("status %q: %v", strings.TrimSpace(status), err)
	}
	inSnapshot := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			conn.Close()
			return nil, err
		}
		if strings.Contains(line, "event: snapshot") {
			inSnapshot = true
		}
		if inSnapshot && strings.TrimSpace(line) == "" {
			_ = conn.SetReadDeadline(time.Time{})
			return conn, nil
		}
	}
}
