package agents

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// streamReader is how a provider reads its upstream's answer: event handles one server-sent event
// and reports whether it was the stream's end marker; whole, when not nil, reads a body that came
// as one JSON document instead (a server that ignored "stream": true) and reports whether it was an
// answer it understood.
type streamReader struct {
	key   string
	idle  *idleWatch // armed by the provider before it sent the request
	event func(sseEvent) (end bool, err error)
	whole func(body []byte) bool
}

// bodyReaders holds the 64 KiB buffers answers are read through, one per answer being read: a
// fast local model's thousands of small chunks then cost one read call per 64 KiB, and an answer
// does not allocate (and zero) a buffer of its own.
var bodyReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// maxWholeBody bounds a non-stream answer body read into memory.
const maxWholeBody = 1 << 20

// read is the one place a provider's response body is read. It first makes sure the body is an
// event stream: a text/event-stream type, or a body that begins like one whatever its type says.
// An HTML page (a proxy's error or sign-in page), JSON or other text is named for what it was. It
// then feeds each event to r.event until the end marker, the end of the body, a read failure,
// an upstream error or emit's error, and returns the assembled Result. Every read of the body
// rearms r.idle, the provider's silence watchdog.
func (r streamReader) read(ctx context.Context, a *assembler, resp *http.Response) (Result, error) {
	idle := r.idle
	body := bodyReaders.Get().(*bufio.Reader)
	body.Reset(idle.reader(resp.Body))
	defer func() { body.Reset(nil); bodyReaders.Put(body) }() // nothing read keeps a slice of it
	switch kind := bodyKind(resp.Header.Get("Content-Type"), body); kind {
	case "event-stream":
	case "json":
		doc, err := io.ReadAll(io.LimitReader(body, maxWholeBody))
		if err != nil {
			return a.stop(ctx, idle, err)
		}
		if r.whole == nil || !r.whole(doc) {
			a.fail(notEventStream(kind, resp, doc, r.key))
		}
		return a.result()
	default:
		doc, _ := io.ReadAll(io.LimitReader(body, 64<<10))
		a.fail(notEventStream(kind, resp, doc, r.key))
		return a.result()
	}
	events := newSSEDecoder(body)
	for {
		ev, err := events.Next()
		if errors.Is(err, io.EOF) {
			// An event stream that ended without an event but held other text: a server's error
			// sent as a bare document (a proxy or gateway answering 200 with its error body).
			if stray := events.Stray(); len(stray) > 0 {
				if message, _ := errorBody(stray); message != "" {
					a.fail(streamError(stray, r.key))
				}
			}
			return a.result()
		}
		if err != nil {
			return a.stop(ctx, idle, err)
		}
		end, err := r.event(ev)
		if end {
			a.ended = true
		}
		if err != nil || end || a.err != nil {
			return a.result()
		}
	}
}

// bodyKind names what a 2xx body is: "event-stream", "json", "html" or "text". A body that
// begins like an event stream is one whatever its Content-Type; otherwise the type decides, and
// when it is missing or generic, the first bytes.
func bodyKind(contentType string, body *bufio.Reader) string {
	mediaType, _, _ := mime.ParseMediaType(contentType)
	if mediaType == "text/event-stream" {
		return "event-stream"
	}
	// What the first read brought (waiting for more would delay a slow stream's first text).
	_, _ = body.Peek(1)
	head, _ := body.Peek(min(body.Buffered(), 512))
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xEF\xBB\xBF")), " \t\r\n")
	for _, field := range []string{"data:", "event:", ":", "id:", "retry:"} {
		if bytes.HasPrefix(head, []byte(field)) {
			return "event-stream"
		}
	}
	switch {
	case mediaType == "application/json" || strings.HasSuffix(mediaType, "+json"):
		return "json"
	case mediaType == "text/html" || mediaType == "application/xhtml+xml":
		return "html"
	case bytes.HasPrefix(head, []byte("{")) || bytes.HasPrefix(head, []byte("[")):
		return "json"
	case bytes.HasPrefix(head, []byte("<")):
		return "html"
	}
	return "text"
}

var htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// pageTitle is the <title> of an HTML body as one line, "" when it has none.
func pageTitle(body []byte) string {
	m := htmlTitle.FindSubmatch(body)
	if m == nil {
		return ""
	}
	return strings.Join(strings.Fields(html.UnescapeString(string(m[1]))), " ")
}

// notEventStream explains a 2xx answer that was not an event stream, naming what it was.
func notEventStream(kind string, resp *http.Response, body []byte, key string) *UpstreamError {
	what := resp.Header.Get("Content-Type")
	if what == "" {
		what = "no Content-Type"
	}
	switch kind {
	case "html":
		msg := fmt.Sprintf("The model provider answered HTTP %d with an HTML page instead of an event stream (often a proxy's error or sign-in page; check the base URL)", resp.StatusCode)
		if title := pageTitle(body); title != "" {
			msg += ": " + clip(redact(title, key), 200)
		}
		return &UpstreamError{Kind: KindNotEventStream, Code: "html", Message: msg + "."}
	case "json":
		if message, _ := errorBody(body); message != "" {
			return streamError(body, key)
		}
		return &UpstreamError{Kind: KindNotEventStream, Code: "json",
			Message: "The model provider answered with a JSON document instead of an event stream: " + clip(redact(printable(body), key), 200)}
	}
	msg := fmt.Sprintf("The model provider answered with %s instead of an event stream", what)
	if text := printable(body); text != "" {
		msg += ": " + clip(redact(text, key), 200)
	}
	return &UpstreamError{Kind: KindNotEventStream, Code: "text", Message: msg}
}

// printable is body as one line of text, "" when it is not UTF-8 text.
func printable(body []byte) string {
	if !utf8.Valid(body) {
		return ""
	}
	return strings.Join(strings.Fields(string(body)), " ")
}
