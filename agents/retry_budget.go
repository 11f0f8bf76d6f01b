package agents

import (
	"net/http"
	"strconv"
	"time"
)

// retryWithin is an SDK middleware (the OpenAI and Anthropic SDKs' option.Middleware) for one
// stream whose first byte is due by deadline. The SDKs retry 408/409/429/5xx answers, sleeping as
// long as Retry-After (seconds or an HTTP date) or Retry-After-Ms says; an answer asking to wait
// past the deadline is marked "x-should-retry: false", which both SDKs obey, so the stream fails at
// once with the provider's own status and reason ("HTTP 429: Rate limit reached …") instead of
// sleeping into the first-byte limit and saying the model sent nothing.
func retryWithin(deadline time.Time) func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		res, err := next(req)
		if err != nil || res == nil || res.StatusCode < 400 {
			return res, err
		}
		if wait, ok := retryAfter(res.Header, time.Now()); ok && time.Now().Add(wait).After(deadline) {
			res.Header.Set("x-should-retry", "false")
		}
		return res, nil
	}
}

// retryAfter is the wait an error answer asks for: Retry-After-Ms (milliseconds), else Retry-After
// (seconds, or an HTTP date, from now). ok is false when it asks for none.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return t.Sub(now), true
	}
	return 0, false
}
