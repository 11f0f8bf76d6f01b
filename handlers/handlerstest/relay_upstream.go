package handlerstest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RelayUpstream is a fake OpenAI-compatible server built to be timed: every call streams the same
// Deltas as pre-rendered chat.completion.chunk events, each written and flushed on its own, as
// fast as the connection takes them (Gap 0) or one every Gap, scheduled from the reply's start so
// pacing never drifts: a Gap under a millisecond is waited out by spinning on the clock (a sleep
// that short oversleeps), a longer one by sleeping. It does no per-delta allocation, JSON or timer
// below a millisecond, so it is as quick as a local model server can be. After each reply it calls OnDone with when the reply
// started and finished and when each delta was written (Unix nanoseconds, one per delta; the slice
// is reused by the next reply).
type RelayUpstream struct {
	Deltas []string
	Gap    time.Duration
	OnDone func(started, finished int64, sent []int64)

	once       sync.Once
	head, tail []byte
	chunks     [][]byte
	mu         sync.Mutex // one reply at a time, so sent is not shared
	sent       []int64
}

func (u *RelayUpstream) render() {
	event := func(delta map[string]any, finish any) []byte {
		b, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-relay", "object": "chat.completion.chunk", "created": 1, "model": "fake-model",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		})
		return []byte("data: " + string(b) + "\n\n")
	}
	u.head = event(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, d := range u.Deltas {
		u.chunks = append(u.chunks, event(map[string]any{"content": d}, nil))
	}
	u.tail = append(event(map[string]any{}, "stop"), "data: [DONE]\n\n"...)
	u.sent = make([]int64, len(u.Deltas))
}

// ServeHTTP answers POST /chat/completions (any path) with the stream.
func (u *RelayUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.once.Do(u.render)
	u.mu.Lock()
	defer u.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	started := time.Now()
	_, _ = w.Write(u.head)
	flusher.Flush()
	for i, c := range u.chunks {
		switch due := started.Add(time.Duration(i+1) * u.Gap); {
		case u.Gap >= time.Millisecond:
			time.Sleep(time.Until(due))
		case u.Gap > 0:
			for time.Now().Before(due) {
			}
		}
		if _, err := w.Write(c); err != nil {
			return
		}
		flusher.Flush()
		u.sent[i] = time.Now().UnixNano()
	}
	_, _ = w.Write(u.tail)
	flusher.Flush()
	if u.OnDone != nil {
		u.OnDone(started.UnixNano(), time.Now().UnixNano(), u.sent)
	}
}

// FormatRelayTiming is the line a RelayUpstream process prints per reply:
// "<started> <finished> <sent…>", Unix nanoseconds.
func FormatRelayTiming(started, finished int64, sent []int64) string {
	var b strings.Builder
	b.Grow(20 * (len(sent) + 2))
	b.WriteString(strconv.FormatInt(started, 10))
	b.WriteByte(' ')
	b.WriteString(strconv.FormatInt(finished, 10))
	for _, s := range sent {
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(s, 10))
	}
	return b.String()
}

// ParseRelayTiming reads a FormatRelayTiming line. It allocates little beyond sent, because the
// benchmark reading it shares its process's heap, and so its garbage collector, with Parley's.
func ParseRelayTiming(line string) (started, finished time.Time, sent []time.Time, err error) {
	sent = make([]time.Time, 0, strings.Count(line, " ")-1)
	for i := 0; line != ""; i++ {
		var field string
		field, line, _ = strings.Cut(line, " ")
		n, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return started, finished, nil, fmt.Errorf("relay timing: %w", err)
		}
		switch i {
		case 0:
			started = time.Unix(0, n)
		case 1:
			finished = time.Unix(0, n)
		default:
			sent = append(sent, time.Unix(0, n))
		}
	}
	if finished.IsZero() {
		return started, finished, nil, errors.New("relay timing: want at least two numbers")
	}
	return started, finished, sent, nil
}
