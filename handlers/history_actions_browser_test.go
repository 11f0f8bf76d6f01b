package handlers_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// On a phone each sidebar item's Rename and Delete are visible without hovering.
func TestBrowserHistoryActionsShowOnAPhone(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	seedConversation(t, app, "ada@example.com", "Touch me", time.Now(), "q", "a")
	b.do("phone-sized chat", chromedp.EmulateViewport(390, 800), chromedp.Navigate(app.URL+"/chat/new"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.do("open history", chromedp.Click(chromedp.CSS(`#history-toggle`)))
	b.waitFor("the sidebar", `getComputedStyle(document.getElementById('history')).display !== 'none'`)
	visible := `(function () { var r = document.querySelector('[data-testid=rename]'); return !!r && r.getBoundingClientRect().width > 0; })()`
	if b.eval("String("+visible+")") != "true" {
		handlerstest.Screenshot(t, b.ctx, "phone-history-actions")
		t.Fatal("Rename is hidden on a phone")
	}
	// On a wide screen they stay out of the way until the item is hovered or focused.
	b.do("desktop chat", chromedp.EmulateViewport(1280, 800), chromedp.Navigate(app.URL+"/chat/new"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	if b.eval("String("+visible+")") != "false" {
		t.Fatal("Rename shows on a wide screen without hovering")
	}
}

// Copy all works without ClipboardItem: with navigator.clipboard.writeText, and without any
// clipboard API through a selected textarea and execCommand('copy').
func TestBrowserCopyAllFallsBackWithoutClipboardItem(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	id, _ := seedConversation(t, app, "ada@example.com", "Copy me", time.Now(), "copy this question", "and this answer")
	open := chromedp.Navigate(fmt.Sprintf("%s/sessions/%d/chat", app.URL, id))
	copyAll := func(what string) {
		b.do(what, chromedp.Click(chromedp.CSS(`[data-testid=conversation-menu]`)), chromedp.Click(chromedp.CSS(`[data-testid=copy-all]`)))
	}
	b.do("open", open, chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.eval(`(function () {
		window.ClipboardItem = undefined;
		Object.defineProperty(navigator, 'clipboard', {configurable: true, value: {writeText: function (t) { window.copied = t; return Promise.resolve(); }}});
		return '';
	})()`)
	copyAll("copy with writeText")
	b.waitFor("the text copied by writeText", `(window.copied || '').includes('copy this question') && document.querySelector('[data-testid=copy-all]').textContent === 'Copied'`)

	b.do("reopen", open, chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.eval(`(function () {
		window.ClipboardItem = undefined;
		Object.defineProperty(navigator, 'clipboard', {configurable: true, value: undefined});
		document.addEventListener('copy', function () {
			var a = document.activeElement;
			window.copied = a && a.value !== undefined ? a.value.slice(a.selectionStart, a.selectionEnd) : String(getSelection());
		});
		return '';
	})()`)
	copyAll("copy with execCommand")
	b.waitFor("the text copied by execCommand", `(window.copied || '').includes('and this answer') && document.querySelector('[data-testid=copy-all]').textContent === 'Copied'`)
}
