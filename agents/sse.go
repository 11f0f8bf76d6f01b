package agents

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync/atomic"
	"time"
)

// sseEvent is one dispatched server-sent event. Type is the event: field ("message" when absent);
// Data is the data: lines joined with "\n".
type sseEvent struct {
	Type string
	Data []byte
}

// maxSSELine bounds one line so a broken upstream cannot make us buffer without end.
const maxSSELine = 8 << 20

var errSSELineTooLong = errors.New("event stream line longer than 8 MiB")

// sseDecoder reads text/event-stream per the WHATWG rules
// (html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
// lines end in CRLF, LF or a lone CR; a leading BOM is skipped; ":" lines are comments; an event is
// dispatched at a blank line; and at end of input an event that was not closed by a blank line, or
// a line cut short, is discarded. The SDKs' own decoders use bufio.Scanner, which does not accept
// a lone CR as a line end, and they stop at an in-stream error without the fields we need.
type sseDecoder struct {
	r      *bufio.Reader
	line   []byte
	data   []byte // the event being read; reused, so an event's Data is valid until the next Next
	lastCR bool   // the previous line ended in CR: a following LF belongs to it
	first  bool   // nothing read yet: a byte order mark may come first
	// stray holds the lines that were no field of the stream (up to maxStray bytes) while no event
	// has been dispatched: a server that answers an event stream with a bare JSON error says why
	// there.
	stray      []byte
	dispatched bool
}

// maxStray bounds sseDecoder.stray.
const maxStray = 64 << 10

func newSSEDecoder(r io.Reader) *sseDecoder {
	return &sseDecoder{r: bufio.NewReader(r), first: true}
}

// Stray returns the lines that were no field of the stream, and a last line the input cut short
// unless it began like a field or a comment, when the stream has dispatched no event (nil
// otherwise). Call it at the end of input.
func (d *sseDecoder) Stray() []byte {
	if d.dispatched {
		return nil
	}
	switch field, _, _ := bytes.Cut(d.line, []byte(":")); {
	case len(d.line) == 0, d.line[0] == ':', slices.Contains([]string{"data", "event", "id", "retry"}, string(field)):
		return d.stray
	}
	return append(d.stray, d.line...)
}

// Next returns the next event, whose Data is valid until the next call. At the end of input it
// returns io.EOF (any unfinished event is dropped); a read failure is returned as it is.
func (d *sseDecoder) Next() (sseEvent, error) {
	var (
		typ     string
		hasData bool
	)
	data := d.data[:0]
	defer func() { d.data = data[:0] }()
	for {
		line, err := d.readLine()
		if err != nil {
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if !hasData {
				typ = ""
				continue
			}
			if typ == "" {
				typ = "message"
			}
			d.dispatched = true
			return sseEvent{Type: typ, Data: bytes.TrimSuffix(data, []byte("\n"))}, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value, found := bytes.Cut(line, []byte(":"))
		if found && len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(field) {
		case "event":
			typ = string(value)
		case "data":
			data = append(data, value...)
			data = append(data, '\n')
			hasData = true
		case "id", "retry": // they matter only to a browser that reconnects
		default: // not a field of an event stream: kept while no event came (Stray)
			if !d.dispatched && len(d.stray)+len(line) < maxStray {
				d.stray = append(append(d.stray, line...), '\n')
			}
		}
	}
}

// readLine returns the next line without its terminator. The slice is valid until the next call.
// A final line with no terminator is not a line: EOF is returned instead. It scans what the reader
// has buffered for the first CR or LF with bytes.IndexByte rather than byte by byte: a fast
// upstream's chunks are a few hundred bytes each, and a 64 KiB read holds hundreds of them.
func (d *sseDecoder) readLine() ([]byte, error) {
	d.line = d.line[:0]
	if d.first {
		d.first = false
		if p, _ := d.r.Peek(3); bytes.Equal(p, []byte("\xEF\xBB\xBF")) {
			_, _ = d.r.Discard(3)
		}
	}
	for {
		if d.r.Buffered() == 0 {
			if _, err := d.r.Peek(1); err != nil {
				return nil, err
			}
		}
		buf, _ := d.r.Peek(d.r.Buffered())
		if d.lastCR {
			d.lastCR = false
			if buf[0] == '\n' {
				_, _ = d.r.Discard(1)
				continue
			}
		}
		end := bytes.IndexByte(buf, '\n')
		scan := buf
		if end >= 0 {
			scan = buf[:end]
		}
		if cr := bytes.IndexByte(scan, '\r'); cr >= 0 {
			end = cr
			d.lastCR = true
		}
		if end < 0 {
			// No terminator buffered yet: keep the bytes and read more.
			if len(d.line)+len(buf) > maxSSELine {
				return nil, errSSELineTooLong
			}
			d.line = append(d.line, buf...)
			_, _ = d.r.Discard(len(buf))
			continue
		}
		if len(d.line)+end > maxSSELine {
			return nil, errSSELineTooLong
		}
		line := buf[:end]
		if len(d.line) > 0 {
			d.line = append(d.line, line...)
			line = d.line
		}
		// Discarding leaves the buffer's bytes in place until the next read, so line stays valid.
		_, _ = d.r.Discard(end + 1)
		return line, nil
	}
}

// silenceLimits bound how long an upstream may stay silent: FirstByte from sending the request
// until the first byte of the response body (headers, retries and a model still loading included),
// Idle between any two reads once the body has started.
type silenceLimits struct {
	FirstByte, Idle time.Duration
}

// silenceError is the cancel cause an idleWatch gives its stream's context when a limit passes.
type silenceError struct {
	limit   time.Duration
	started bool // the body had started: the Idle limit passed, not FirstByte
}

func (e *silenceError) Error() string {
	if e.started {
		return fmt.Sprintf("The model sent nothing for %s after it started answering, so the answer was abandoned (its text so far is kept).", seconds(e.limit))
	}
	return fmt.Sprintf("The model sent nothing for %s after the request, so the answer was abandoned.", seconds(e.limit))
}

// seconds writes d as "30 s" when it is whole seconds, else in Go's notation ("250ms").
func seconds(d time.Duration) string {
	if d >= time.Second && d%time.Second == 0 {
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return d.String()
}

// idleWatch abandons a stream whose upstream stays silent too long: it is armed with the FirstByte
// limit before the request is sent; every read of the body that returns bytes rearms it with the
// Idle limit; when it fires, stop cancels the stream's context with a *silenceError cause, which
// aborts a blocked request or read, and stoppedError turns that cause into the failure's message.
type idleWatch struct {
	limits  silenceLimits
	timer   *time.Timer
	started atomic.Bool
	hit     atomic.Bool
}

func newIdleWatch(limits silenceLimits, stop context.CancelCauseFunc) *idleWatch {
	w := &idleWatch{limits: limits}
	w.timer = time.AfterFunc(limits.FirstByte, func() {
		w.hit.Store(true)
		started := w.started.Load()
		limit := limits.FirstByte
		if started {
			limit = limits.Idle
		}
		stop(&silenceError{limit: limit, started: started})
	})
	return w
}

func (w *idleWatch) fired() bool { return w.hit.Load() }

func (w *idleWatch) Stop() { w.timer.Stop() }

// reader wraps r so every read that returns bytes rearms the timer with the Idle limit.
func (w *idleWatch) reader(r io.Reader) io.Reader { return idleReader{r: r, w: w} }

type idleReader struct {
	r io.Reader
	w *idleWatch
}

func (ir idleReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 && !ir.w.fired() {
		ir.w.started.Store(true)
		ir.w.timer.Reset(ir.w.limits.Idle)
	}
	return n, err
}
