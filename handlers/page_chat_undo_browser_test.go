package handlers_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// Deleting the open page chat moves it to the Trash with an Undo toast, as a general chat's delete
// does; Undo puts it back in the list and opens it again, with its proposal.
func TestBrowserPageChatDeleteThenUndoBringsItBack(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	createPageInBrowser(b, app, "Report", methodsPage)
	askInPanel(b, "rename section Methods to Approach", 1)
	id := b.eval(`document.querySelector('#chat-pane').dataset.exchangeId`)
	if id == "0" || id == "" {
		t.Fatalf("the open chat has id %q", id)
	}
	b.do("open the history", chromedp.Click(chromedp.CSS(`#page-history-toggle`)))
	b.waitFor("the chat is listed", `!!document.querySelector('[data-page-chat="`+id+`"] input[name=id]') && `+settled)
	b.do("select and delete it",
		chromedp.Click(chromedp.CSS(`[data-page-chat="`+id+`"] input[name=id]`)),
		chromedp.Click(chromedp.CSS(`[data-testid=delete-selected-chats]`)),
	)
	b.waitFor("the list no longer shows it and Undo is offered", `!document.querySelector('[data-page-chat="`+id+`"]') &&
		!document.querySelector('#undo-toast').classList.contains('hidden') && `+settled)
	if got := b.eval(`document.querySelector('#undo-toast').textContent`); !strings.Contains(got, "Chat moved to Trash.") {
		t.Fatalf("toast says %q", got)
	}
	b.waitFor("the panel shows a new chat", `document.querySelector('#chat-pane').dataset.exchangeId === '0' && `+settled)
	b.do("undo", chromedp.Click(chromedp.CSS(`#undo-toast [data-testid=undo]`)))
	b.waitFor("the chat is back in the list, open, with its proposal", `!!document.querySelector('[data-page-chat="`+id+`"]') &&
		document.querySelector('#chat-pane').dataset.exchangeId === '`+id+`' &&
		document.querySelector('#undo-toast').classList.contains('hidden') &&
		!!document.querySelector('#chat-pane [data-testid=proposal][data-status=pending] [data-testid=accept]') && `+settled)
	var deleted int
	if err := app.Store.DB.Get(&deleted, `SELECT count(*) FROM chat_exchange WHERE id = $1 AND deleted_at IS NOT NULL`, id); err != nil || deleted != 0 {
		t.Fatalf("the restored chat is still in the Trash (%d, %v)", deleted, err)
	}
}
