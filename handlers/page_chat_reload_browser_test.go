package handlers_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// After switching to an older page chat, a reload reopens that chat, not the most recently
// active one.
func TestBrowserReloadReopensThePageChatBeingRead(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	createPageInBrowser(b, app, "Chats", methodsPage)
	const paneID = `document.querySelector('#chat-pane').dataset.exchangeId`
	askInPanel(b, "rename section Methods to Approach", 1)
	first := b.eval(paneID)
	b.eval(`document.querySelector('[data-testid=page-new-chat]').click(), ''`)
	b.waitFor("a new chat", paneID+` === '0' && `+settled)
	askInPanel(b, "rename section Results to Findings", 1)
	second := b.eval(paneID)
	if first == "0" || second == "0" || first == second {
		t.Fatalf("chats %s and %s", first, second)
	}
	b.eval(`document.querySelector('#page-history-toggle').click(), ''`)
	b.eval(`document.querySelector('[data-page-chat="` + first + `"] button').click(), ''`)
	b.waitFor("the first chat on screen", paneID+` === '`+first+`' && `+settled)
	b.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#chat-pane`)))
	if got := b.eval(paneID); got != first {
		t.Fatalf("after a reload chat %s is open, want %s (the one being read)", got, first)
	}
}
