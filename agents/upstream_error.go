package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrorKind classifies why a stream did not complete.
type ErrorKind string

// The error kinds.
const (
	KindUpstreamError    ErrorKind = "upstream_error"    // the upstream reported an error inside the stream, or could not be reached
	KindIncompleteStream ErrorKind = "incomplete_stream" // the stream ended (or broke) before a finish reason arrived
	KindHTTPError        ErrorKind = "http_error"        // the upstream answered with HTTP 4xx/5xx; Status is set
	KindContentFilter    ErrorKind = "content_filter"    // the upstream's content filter stopped the answer
	KindRefusal          ErrorKind = "refusal"           // the model declined to answer (OpenAI's refusal, Anthropic's stop_reason refusal)
	KindTokenLimit       ErrorKind = "token_limit"       // the token limit came before any answer text (often spent on reasoning)
	KindEmptyAnswer      ErrorKind = "empty_answer"      // the model finished without any answer text or tool call (set by the chat engine, which sees every round)
	KindNotEventStream   ErrorKind = "not_event_stream"  // the upstream answered 2xx with something other than an event stream (an HTML page, plain JSON, text)
	KindTimeout          ErrorKind = "timeout"           // a deadline passed, or the upstream went silent too long
	KindCanceled         ErrorKind = "canceled"          // ctx was canceled, or the emit callback stopped the stream
)

// UpstreamError is why a model stream failed. Message is readable for a person and never holds an
// API key. Status is the HTTP status for KindHTTPError (and 0 otherwise). Code is the upstream's
// own error type or code when it sent one ("overloaded_error", "server_error", "500" …). Err is the
// cause, for errors.Is / errors.As (context.Canceled, an emit error …).
type UpstreamError struct {
	Kind    ErrorKind
	Message string
	Status  int
	Code    string
	Err     error
}

// Error returns Message.
func (e *UpstreamError) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *UpstreamError) Unwrap() error { return e.Err }

// KindOf returns the kind of the *UpstreamError in err's chain, or "" when there is none.
func KindOf(err error) ErrorKind {
	var ue *UpstreamError
	if errors.As(err, &ue) {
		return ue.Kind
	}
	return ""
}

// stoppedError explains why reading stopped early: the idle watchdog fired (ctx's cancel cause is a
// *silenceError), ctx was canceled or its deadline passed, or the connection broke (cause, which may
// be nil at a clean EOF).
func stoppedError(ctx context.Context, cause error) *UpstreamError {
	var silent *silenceError
	switch {
	case ctx.Err() != nil && errors.As(context.Cause(ctx), &silent):
		return &UpstreamError{Kind: KindTimeout, Message: silent.Error(), Err: silent}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &UpstreamError{Kind: KindTimeout, Message: "The answer took too long and was stopped.", Err: ctx.Err()}
	case ctx.Err() != nil:
		return &UpstreamError{Kind: KindCanceled, Message: "The answer was stopped.", Err: ctx.Err()}
	}
	var ne net.Error
	if errors.As(cause, &ne) && ne.Timeout() {
		return &UpstreamError{Kind: KindTimeout, Message: "The connection to the model timed out before the answer was finished.", Err: cause}
	}
	if cause == nil {
		return &UpstreamError{Kind: KindIncompleteStream, Message: "The model's stream ended before the answer was finished."}
	}
	return &UpstreamError{Kind: KindIncompleteStream, Message: "The connection to the model broke before the answer was finished.", Err: cause}
}

// requestError explains a failure to get a streaming response at all: the request could not be
// sent, or the upstream answered with an HTTP error. resp is the last response the SDK saw (nil
// when none came); both SDKs leave an error response's body readable. key is redacted from
// everything shown. baseHint is the provider's advice on its base URL, given with a 404 or 405
// that brought no JSON error of the server's own (see missingEndpoint).
func requestError(ctx context.Context, err error, resp *http.Response, key, baseHint string) *UpstreamError {
	if ctx.Err() != nil {
		return stoppedError(ctx, err)
	}
	if resp != nil && resp.StatusCode >= 400 {
		var body []byte
		if resp.Body != nil {
			body, _ = io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		}
		message, code := errorBody(body)
		message = strings.TrimSpace(redact(message, key))
		if message == "" {
			message = http.StatusText(resp.StatusCode)
			if title := pageTitle(body); title != "" {
				message = "an HTML page titled " + strconv.Quote(clip(redact(title, key), 200))
			}
		}
		text := fmt.Sprintf("The model provider answered HTTP %d: %s", resp.StatusCode, clip(message, 500))
		if missingEndpoint(resp, body) {
			text = fmt.Sprintf("The model provider answered HTTP %d (%s) to %s %s, so nothing answers there. %s",
				resp.StatusCode, clip(message, 200), resp.Request.Method, resp.Request.URL.Path, baseHint)
		}
		return &UpstreamError{
			Kind:    KindHTTPError,
			Status:  resp.StatusCode,
			Code:    code,
			Message: text,
			Err:     err,
		}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &UpstreamError{Kind: KindTimeout, Message: "The model provider did not answer in time.", Err: err}
	}
	return &UpstreamError{
		Kind:    KindUpstreamError,
		Message: "Could not reach the model provider: " + redact(rootCause(err), key),
		Err:     err,
	}
}

// missingEndpoint reports whether resp says that the request's path does not exist: a 404 or 405
// whose body is not JSON (a router's "404 page not found", an HTML page, nothing). A 404 with a
// JSON error is the server's own answer about the model ("model not found"), not about the path.
func missingEndpoint(resp *http.Response, body []byte) bool {
	return (resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed) &&
		resp.Request != nil && !json.Valid(body)
}

// streamError turns an error reported inside a stream (an OpenAI-style {"error":{…}} chunk or an
// Anthropic "event: error") into an UpstreamError of kind upstream_error.
func streamError(data []byte, key string) *UpstreamError {
	message, code := errorBody(data)
	message = strings.TrimSpace(redact(message, key))
	if message == "" {
		message = "unknown error"
	}
	return &UpstreamError{
		Kind:    KindUpstreamError,
		Code:    code,
		Message: "The model provider reported an error: " + clip(message, 500),
	}
}

// errorBody finds the message and code in an error body. It reads the shapes servers send:
// {"error":{"message","type","code"}} (OpenAI, vLLM, OpenRouter, Anthropic), {"error":"…"}
// (Ollama), {"message":"…"} and {"detail":"…"} (some proxies), and short plain text.
func errorBody(body []byte) (message, code string) {
	var doc struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &doc) != nil {
		text := strings.TrimSpace(string(body))
		if len(text) > 0 && len(text) <= 300 && !strings.HasPrefix(text, "<") && utf8.ValidString(text) {
			return text, ""
		}
		return "", ""
	}
	var inner struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	}
	var plain string
	switch {
	case json.Unmarshal(doc.Error, &inner) == nil && inner.Message != "":
		message = inner.Message
		switch {
		case inner.Type != "":
			code = inner.Type
		case inner.Code != nil:
			code = fmt.Sprint(inner.Code)
		}
		if c, ok := inner.Code.(string); ok && c != "" {
			code = c
		}
	case json.Unmarshal(doc.Error, &plain) == nil:
		message = plain
	case doc.Message != "":
		message = doc.Message
	case doc.Detail != nil:
		if d, ok := doc.Detail.(string); ok {
			message = d
		}
	}
	return message, code
}

// rootCause gives the innermost error text, which for a dial failure is the readable part
// ("connection refused") without the request URL.
func rootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// keyLike matches secrets that upstream messages like to echo back ("Incorrect API key provided:
// sk-proj-****abcd"), so even a masked key never reaches a person or a log.
var keyLike = regexp.MustCompile(`\b(sk|pk|rk|key)-[A-Za-z0-9_\-*.]{4,}`)

// redact removes the configured key and anything that looks like an API key from s.
func redact(s, key string) string {
	if key != "" {
		s = strings.ReplaceAll(s, key, "[redacted]")
	}
	return keyLike.ReplaceAllString(s, "[redacted]")
}

// clip shortens s to at most n bytes at a rune boundary, marking the cut with an ellipsis.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// opened reports whether a streaming request got a response body to read; when it did not, it
// records why on a (the request failed, or the upstream sent no body). baseHint: see requestError.
func (a *assembler) opened(ctx context.Context, err error, resp *http.Response, key, baseHint string) bool {
	switch {
	case err != nil:
		a.fail(requestError(ctx, err, resp, key, baseHint))
	case resp == nil || resp.Body == nil:
		a.fail(&UpstreamError{Kind: KindUpstreamError, Message: "The model provider sent no response body."})
	default:
		return true
	}
	return false
}
