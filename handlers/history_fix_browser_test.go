package handlers_test

import (
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
