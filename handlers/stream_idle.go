package handlers

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
)

// What an idle conversation stream costs is what it holds while it waits. Served the plain way, a
// stream parks net/http's connection goroutine (its stack grown by the middleware chain, the
// session lookup and the snapshot render), net/http's background reader goroutine, the
// connection's 4 kB read and 4 kB write buffers, the chunking writer's 2 kB buffer and the whole
// request. So once its snapshot is sent, a stream over HTTP/1.x takes the connection over
// (Hijack), lets the handler return (which frees all of that) and follows the conversation in a
// goroutine of its own that starts with a small stack; a second small goroutine only waits for
// the client to hang up. Its events are written straight to the connection (each event is one
// write, as before), and every idle stream shares one heartbeat.

// streamWriteTimeout bounds one write to a taken-over stream connection: a client that stops
// reading (its TCP window full) ends its stream instead of holding it forever.
const streamWriteTimeout = time.Minute

// heartbeat wakes every idle stream at once, every PARLEY_STREAM_HEARTBEAT, from one shared ticker (a
// ticker per stream is a timer per stream). C returns the channel the next beat closes.
type heartbeat struct {
	ch atomic.Pointer[chan struct{}]
}

func newHeartbeat(every time.Duration, stop <-chan struct{}) *heartbeat {
	h := &heartbeat{}
	ch := make(chan struct{})
	h.ch.Store(&ch)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				next := make(chan struct{})
				close(*h.ch.Swap(&next))
			}
		}
	}()
	return h
}

// C is closed at the next beat.
func (h *heartbeat) C() <-chan struct{} { return *h.ch.Load() }

// detach takes the stream's connection over from net/http once its headers (and snapshot) are
// written, so the handler can return; it reports false when the connection cannot be taken (HTTP/2,
// or a test's recorder), and the stream then goes on inside the handler. The returned context ends
// when the client hangs up; cancel it when the stream ends, which also closes the connection.
func (s *sseWriter) detach() (context.Context, context.CancelFunc, bool) {
	if !s.hijackable {
		return nil, nil, false
	}
	conn, rw, err := s.rc.Hijack()
	if err != nil {
		return nil, nil, false
	}
	if rw.Writer.Buffered() > 0 { // never the case: every event is flushed
		_ = rw.Flush()
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // the only way net gives of learning that the client left: a read that fails
		var b [1]byte
		for {
			if _, err := conn.Read(b[:]); err != nil {
				cancel()
				return
			}
		}
	}()
	s.w, s.rc = &deadlineConn{conn}, nil
	return ctx, func() { cancel(); conn.Close() }, true
}

// deadlineConn writes with a deadline of streamWriteTimeout per write.
type deadlineConn struct{ net.Conn }

func (d *deadlineConn) Write(p []byte) (int, error) {
	_ = d.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	return d.Conn.Write(p)
}

// streamContextKeys are the values a snapshot's render reads from the request's echo context.
var streamContextKeys = []string{viewerKey, guestKey, csrfKey, widgetKey, signOnKey}

// detachedContext copies what a later snapshot (after a resync) needs from c, which echo reuses
// once the handler returns: the route, its parameters, the viewer, guest, CSRF token and widget
// settings, and the request's address and headers (never its body).
func detachedContext(c echo.Context) echo.Context {
	r := c.Request()
	req := &http.Request{
		Method: r.Method, URL: new(*r.URL), Proto: r.Proto, ProtoMajor: r.ProtoMajor, ProtoMinor: r.ProtoMinor,
		Header: r.Header.Clone(), Host: r.Host, RemoteAddr: r.RemoteAddr, RequestURI: r.RequestURI, Body: http.NoBody,
	}
	d := c.Echo().NewContext(req.WithContext(context.Background()), nil)
	d.SetPath(c.Path())
	d.SetParamNames(c.ParamNames()...)
	d.SetParamValues(c.ParamValues()...)
	for _, k := range streamContextKeys {
		if v := c.Get(k); v != nil {
			d.Set(k, v)
		}
	}
	return d
}
