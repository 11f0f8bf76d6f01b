package handlers_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"parley/handlers/handlerstest"
)

// The handle between the editor and the side panel is a keyboard-operable separator, and the
// width it sets is kept with the person's account: across reloads and in their other browsers.
func TestBrowserSplitHandleMovesWithTheKeyboardAndIsRemembered(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	createPageInBrowser(b, app, "Split", methodsPage)
	width := func() int {
		n, err := strconv.ParseFloat(b.eval(`String(document.querySelector('#side-panel').getBoundingClientRect().width)`), 64)
		if err != nil {
			t.Fatal(err)
		}
		return int(n + 0.5)
	}
	before := width()
	b.do("widen the panel with the arrow keys",
		chromedp.Focus(chromedp.CSS(`#split-handle`)),
		chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowLeft))
	wider := width()
	if wider != before+96 {
		t.Fatalf("the panel is %d px after three ← from %d, want %d", wider, before, before+96)
	}
	if got := b.eval(`document.querySelector('#split-handle').getAttribute('aria-valuenow')`); got != strconv.Itoa(wider) {
		t.Fatalf("aria-valuenow %q, want %d", got, wider)
	}
	waitFor(t, 5*time.Second, "the width is stored with the account", func() bool {
		var stored int
		_ = app.Store.DB.Get(&stored, `SELECT coalesce((preferences->>'page_side_width')::int, 0) FROM users WHERE email = 'ada@example.com'`)
		return stored == wider
	})
	b.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#page-content`)))
	if got := width(); got != wider {
		t.Fatalf("after a reload the panel is %d px, want the %d set", got, wider)
	}
	other := secondTab(t, app, newestPageID(t, app)) // another browser of the same person
	n, err := strconv.ParseFloat(other.eval(`String(document.querySelector('#side-panel').getBoundingClientRect().width)`), 64)
	if err != nil || int(n+0.5) != wider {
		t.Fatalf("another browser opens the panel %v px wide (%v), want the %d set", n, err, wider)
	}
	if got := other.eval(`document.querySelector('#split-handle').getAttribute('aria-valuenow')`); got != strconv.Itoa(wider) {
		t.Fatalf("another browser's handle says aria-valuenow %q, want %d", got, wider)
	}
	b.do("narrowest", chromedp.Focus(chromedp.CSS(`#split-handle`)), chromedp.KeyEvent(kb.Home))
	if got := width(); got != 288 {
		t.Fatalf("Home gives %d px, want 288 (18rem)", got)
	}
}
