package handlerstest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browserErrors collects what went wrong in one browser tab: console errors, uncaught
// exceptions, browser-logged errors (a CSP violation …), requests that failed on the network, and
// responses with a server error (5xx) or, for the page's own scripts, styles, images and fonts,
// any error status. A test that expects some of them says so with AllowBrowserErrors.
type browserErrors struct {
	mu      sync.Mutex
	seen    []string
	allowed []string
}

var watched sync.Map // the context Browser returned → *browserErrors

// watchErrors starts collecting ctx's errors and fails t at its end when any was not allowed. It
// is registered after the browser's own cleanup, so it runs first, while the page and the app
// still live.
func watchErrors(t testing.TB, ctx context.Context) {
	t.Helper()
	e := &browserErrors{}
	watched.Store(ctx, e)
	if err := chromedp.Listen(ctx, e.event); err != nil {
		t.Fatalf("listening to the browser's console: %v", err)
	}
	t.Cleanup(func() {
		watched.Delete(ctx)
		if bad := e.unexpected(); len(bad) > 0 {
			t.Errorf("the browser reported %d error(s) (a test that expects one calls handlerstest.AllowBrowserErrors):\n%s", len(bad), strings.Join(bad, "\n"))
		}
	})
}

// AllowBrowserErrors tells the error watch of a Browser context that errors containing any of
// the given substrings are expected in this test (for example "status of 404" for a page that
// must answer Not Found, or "ERR_CONNECTION_REFUSED" while the test stops the server).
func AllowBrowserErrors(ctx context.Context, substrings ...string) {
	if v, ok := watched.Load(ctx); ok {
		e := v.(*browserErrors)
		e.mu.Lock()
		e.allowed = append(e.allowed, substrings...)
		e.mu.Unlock()
	}
}

func (e *browserErrors) add(format string, args ...any) {
	e.mu.Lock()
	e.seen = append(e.seen, fmt.Sprintf(format, args...))
	e.mu.Unlock()
}

func (e *browserErrors) unexpected() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var bad []string
next:
	for _, s := range e.seen {
		for _, a := range e.allowed {
			if strings.Contains(s, a) {
				continue next
			}
		}
		bad = append(bad, s)
	}
	return bad
}

// event runs on the tab's reading goroutine: it only records.
func (e *browserErrors) event(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var parts []string
			for _, a := range ev.Args {
				if a.Description != "" {
					parts = append(parts, a.Description)
				} else {
					parts = append(parts, strings.Trim(string(a.Value), `"`))
				}
			}
			e.add("console.%s: %s", ev.Type, strings.Join(parts, " "))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg += " " + d.Exception.Description
		}
		e.add("uncaught exception at %s:%d: %s", d.URL, d.LineNumber+1, msg)
	case *log.EventEntryAdded:
		// Network entries ("Failed to load resource …") repeat what the network events below
		// judge with more care (a 422 answer to a form is not a failure).
		if ev.Entry.Level == log.EntryLevelError && ev.Entry.Source != log.EntrySourceNetwork {
			e.add("browser log (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
		}
	case *network.EventLoadingFailed:
		// Canceled: a navigation or a closed stream ended the request on purpose.
		if !ev.Canceled && ev.ErrorText != "net::ERR_ABORTED" {
			e.add("request failed (%s): %s %s", ev.Type, ev.ErrorText, ev.BlockedReason)
		}
	case *network.EventResponseReceived:
		r := ev.Response
		switch {
		case r.Status >= 500:
			e.add("response status of %d (%s): %s", r.Status, ev.Type, r.URL)
		case r.Status >= 400 && isAsset(ev.Type):
			e.add("response status of %d (%s): %s", r.Status, ev.Type, r.URL)
		}
	}
}

func isAsset(t network.ResourceType) bool {
	switch t {
	case network.ResourceTypeScript, network.ResourceTypeStylesheet, network.ResourceTypeImage, network.ResourceTypeFont:
		return true
	}
	return false
}
