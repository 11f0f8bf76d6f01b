package agents

import (
	"bufio"
	"bytes"
	"errors"
	"io"
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
	lastCR bool // the previous line ended in CR: a following LF belongs to it
	first  bool // nothing read yet: a byte order mark may come first
}

func newSSEDecoder(r io.Reader) *sseDecoder {
	return &sseDecoder{r: bufio.NewReader(r), first: true}
}

// Next returns the next event. At the end of input it returns io.EOF (any unfinished event is
// dropped); a read failure is returned as it is.
func (d *sseDecoder) Next() (sseEvent, error) {
	var (
		typ     string
		data    []byte
		hasData bool
	)
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
		}
		// "id" and "retry" matter only to a browser that reconnects; other fields are ignored.
	}
}

// readLine returns the next line without its terminator. The slice is valid until the next call.
// A final line with no terminator is not a line: EOF is returned instead.
func (d *sseDecoder) readLine() ([]byte, error) {
	d.line = d.line[:0]
	if d.first {
		d.first = false
		if p, _ := d.r.Peek(3); bytes.Equal(p, []byte("\xEF\xBB\xBF")) {
			_, _ = d.r.Discard(3)
		}
	}
	for {
		b, err := d.r.ReadByte()
		if err != nil {
			return nil, err
		}
		if d.lastCR {
			d.lastCR = false
			if b == '\n' {
				continue
			}
		}
		switch b {
		case '\n':
			return d.line, nil
		case '\r':
			d.lastCR = true
			return d.line, nil
		}
		d.line = append(d.line, b)
		if len(d.line) > maxSSELine {
			return nil, errSSELineTooLong
		}
	}
}

// idleWatch abandons a stream whose upstream stays silent longer than limit: each read resets the
// timer, and when it fires, stop (a context cancel) aborts the blocked read.
type idleWatch struct {
	limit time.Duration
	timer *time.Timer
	hit   atomic.Bool
}

func newIdleWatch(limit time.Duration, stop func()) *idleWatch {
	w := &idleWatch{limit: limit}
	w.timer = time.AfterFunc(limit, func() {
		w.hit.Store(true)
		stop()
	})
	return w
}

func (w *idleWatch) fired() bool { return w.hit.Load() }

func (w *idleWatch) Stop() { w.timer.Stop() }

// reader wraps r so every read that returns bytes rearms the timer.
func (w *idleWatch) reader(r io.Reader) io.Reader { return idleReader{r: r, w: w} }

type idleReader struct {
	r io.Reader
	w *idleWatch
}

func (ir idleReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 && !ir.w.fired() {
		ir.w.timer.Reset(ir.w.limit)
	}
	return n, err
}
