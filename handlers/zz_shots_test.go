package handlers_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

func TestZZShots(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	var first int64
	for i := range 40 {
		id, _ := seedConversation(t, app, "ada@example.com", fmt.Sprintf("Conversation about topic number %d with a long title", i), time.Now().Add(-time.Duration(i)*time.Hour), "question", "The **answer** about bananas and more.")
		if i == 0 {
			first = id
		}
	}
	b.do("open", chromedp.Navigate(fmt.Sprintf("%s/sessions/%d/chat", app.URL, first)), chromedp.WaitVisible(chromedp.CSS(`#history-search`)))
	b.waitFor("settled", settled)
	b.eval(`document.querySelector('#history-list').scrollTop = 10000, ''`)
	b.waitFor("page 2", `document.querySelectorAll('[data-history-item]').length === 40`)
	b.eval(`document.querySelector('#history-list').scrollTop = 0, ''`)
	b.eval(`document.querySelector('[data-testid=rename]').click(), ''`)
	b.waitFor("rename form", `document.querySelector('[data-rename-form]')`)
	handlerstest.Screenshot(t, b.ctx, "rename")
	b.eval(`document.querySelector('[data-history-select]').click(), ''`)
	b.eval(`document.querySelectorAll('.history-check')[2].click(), ''`)
	handlerstest.Screenshot(t, b.ctx, "select")
	b.eval(`document.querySelector('[data-history-select]').click(), ''`)
	b.do("search", chromedp.SendKeys(chromedp.CSS(`#history-search`), "bananas"))
	b.waitFor("hits", `document.querySelector('[data-testid=search-hit]')`)
	handlerstest.Screenshot(t, b.ctx, "search")
	b.do("menu", chromedp.Click(chromedp.CSS(`[data-testid=conversation-menu]`)))
	handlerstest.Screenshot(t, b.ctx, "menu")
	b.do("trash", chromedp.Navigate(app.URL+"/history/trash"))
	b.do("share", chromedp.Navigate(fmt.Sprintf("%s/sessions/%d/share", app.URL, first)), chromedp.Click(chromedp.CSS(`[data-testid=create-share]`)))
	b.waitFor("link", `document.querySelector('[data-testid=share-url]')`)
	handlerstest.Screenshot(t, b.ctx, "share")
	url := b.eval(`document.querySelector('[data-testid=share-url]').value`)
	b.do("shared", chromedp.Navigate(url))
	handlerstest.Screenshot(t, b.ctx, "shared")
}
