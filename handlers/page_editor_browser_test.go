package handlers_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// createPageInBrowser makes a page through the new-page form and opens it in the editor.
func createPageInBrowser(b browser, app *handlerstest.App, title, content string) {
	b.t.Helper()
	// A minute: a page near the 1 MB limit (45,000 lines) takes over 20 s to send, store and lay out
	// under -race on a loaded machine (TestBrowserNewPageFormTakesA990KBPage took 35 s at load 19).
	b.doWithin("create a page", time.Minute,
		chromedp.Navigate(app.URL+"/pages/new"),
		chromedp.SendKeys(chromedp.CSS(`input[name=title]`), title),
		chromedp.SetValue(chromedp.CSS(`textarea[name=content]`), content),
		chromedp.Click(chromedp.CSS(`[data-testid=create-page]`)),
		chromedp.WaitVisible(chromedp.CSS(`#page-content`)),
	)
	b.loaded("the page editor", `#page-content`)
}

// typeInEditor replaces old with new in the editor's text as typing would (an input event).
func typeInEditor(b browser, old, new string) {
	b.t.Helper()
	b.eval(`(function(){ var ta = document.querySelector('#page-content');
		ta.value = ta.value.replace(` + jsString(old) + `, ` + jsString(new) + `);
		ta.dispatchEvent(new Event('input', {bubbles: true})); return ''; })()`)
}

func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`)
	return "'" + r.Replace(s) + "'"
}

// Typing in the browser keeps an LF page LF (the form posts CRLF): a pending rename of another
// section stays fresh and applies.
func TestBrowserTypingKeepsLineEndingsAndPendingPatchesFresh(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	createPageInBrowser(b, app, "Report", methodsPage)
	var id int64
	if err := app.Store.DB.Get(&id, `SELECT id FROM pages ORDER BY id DESC LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	if got := storedPage(t, app, id).Content; got != methodsPage {
		t.Fatalf("created page stored as %q", got)
	}
	askInPanel(b, "rename section Methods to Approach", 1)
	typeInEditor(b, "Old results.", "Old results, typed.")
	b.waitFor("saved", `document.querySelector('#save-status').textContent === 'Saved' && `+settled)
	want := strings.Replace(methodsPage, "Old results.", "Old results, typed.", 1)
	if got := storedPage(t, app, id).Content; got != want {
		t.Fatalf("after typing the page is stored as %q", got)
	}
	b.waitFor("the proposal still applies", lastProposal+`.dataset.stale === 'false' && `+settled)
	b.eval(lastProposal + `.querySelector('[data-testid=accept]').click(), ''`)
	b.waitFor("accepted", `document.querySelector('#page-content').value.includes('## Approach') && `+settled)
	if got := storedPage(t, app, id).Content; got != strings.Replace(want, "## Methods", "## Approach", 1) {
		t.Fatalf("after accept the page is %q", got)
	}
}

// Accept clicked while the editor has unsaved typing (within the autosave delay) saves the typing
// first and accepts against the version that save made.
func TestBrowserAcceptRightAfterTypingSavesThenAccepts(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	createPageInBrowser(b, app, "Report", methodsPage)
	var id int64
	if err := app.Store.DB.Get(&id, `SELECT id FROM pages ORDER BY id DESC LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	askInPanel(b, "rename section Methods to Approach", 1)
	typeInEditor(b, "Old results.", "Old results, typed.")
	b.eval(lastProposal + `.querySelector('[data-testid=accept]').click(), ''`)
	b.waitFor("accepted", `document.querySelector('#page-content').value.includes('## Approach') && `+settled)
	want := strings.Replace(strings.Replace(methodsPage, "Old results.", "Old results, typed.", 1), "## Methods", "## Approach", 1)
	if got := storedPage(t, app, id).Content; got != want {
		t.Fatalf("after accept the page is %q", got)
	}
	b.waitFor("the panel offers Undo", `!!document.querySelector('[data-testid=undo]') && `+settled)
	typeInEditor(b, "Old results, typed.", "Old results, typed again.")
	b.do("undo", chromedp.Click(chromedp.CSS(`[data-testid=undo]`)))
	// The typing was saved first, so the page changed after the accept: Undo says so in the panel.
	b.waitFor("undo answers in the panel", lastProposal+`.innerText.includes('changed after this edit was accepted') && `+settled)
	if got := storedPage(t, app, id).Content; !strings.Contains(got, "typed again") {
		t.Fatalf("the typing before Undo was not saved: %q", got)
	}
}

// Deleting the open chat from the page's History switches the panel to a new chat.
func TestBrowserDeletingTheOpenPageChatStartsANewOne(t *testing.T) {
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
	b.waitFor("the list no longer shows it", `!document.querySelector('[data-page-chat="`+id+`"]') && `+settled)
	b.waitFor("the panel shows a new chat", `document.querySelector('#chat-pane').dataset.exchangeId === '0' && `+settled)
	if n := b.eval(`String(document.querySelectorAll('#chat-pane [data-testid=proposal]').length)`); n != "0" {
		t.Fatalf("the deleted chat's proposals still show: %s", n)
	}
}

// On a phone (390 px) the editor takes the full width and the chat is a full-width panel the Chat
// button opens and its Close button closes; on a desktop they stand side by side.
func TestBrowserPageEditorOnAPhoneStacksTheChat(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	b.do("phone", chromedp.EmulateViewport(390, 844))
	createPageInBrowser(b, app, "Report", methodsPage)
	b.waitFor("settled", settled)
	width := func(sel string) int {
		n, _ := strconv.Atoi(b.eval(`String(Math.round(document.querySelector('` + sel + `').getBoundingClientRect().width))`))
		return n
	}
	visible := func(sel string) bool {
		return b.eval(`String(document.querySelector('`+sel+`').getClientRects().length > 0)`) == "true"
	}
	if w := width("#page-content"); w < 370 {
		handlerstest.Screenshot(t, b.ctx, "phone-editor")
		t.Fatalf("on a phone the editor is %d px wide", w)
	}
	if visible("#side-panel") {
		t.Fatal("on a phone the chat covers the editor before it is asked for")
	}
	b.do("open the chat", chromedp.Click(chromedp.CSS(`#chat-toggle`)))
	b.waitFor("the chat panel shows", `document.querySelector('#side-panel').getClientRects().length > 0 && document.querySelector('#query').getClientRects().length > 0`)
	if w := width("#side-panel"); w < 380 {
		t.Fatalf("on a phone the chat panel is %d px wide", w)
	}
	if w := width("#query"); w < 200 {
		t.Fatalf("on a phone the composer is %d px wide", w)
	}
	handlerstest.Screenshot(t, b.ctx, "phone-chat")
	b.do("close the chat", chromedp.Click(chromedp.CSS(`[data-close-panel]`)))
	b.waitFor("the chat panel hides", `document.querySelector('#side-panel').getClientRects().length === 0`)
	handlerstest.Screenshot(t, b.ctx, "phone-editor")

	b.do("desktop", chromedp.EmulateViewport(1280, 800), chromedp.Reload())
	b.waitFor("the editor", `!!document.querySelector('#page-content') && `+settled)
	if !visible("#side-panel") || !visible("#page-content") {
		t.Fatal("on a desktop the editor and the chat do not stand side by side")
	}
	if w := width("#page-content"); w > 1000 || w < 500 {
		t.Fatalf("on a desktop the editor is %d px wide", w)
	}
	handlerstest.Screenshot(t, b.ctx, "desktop")
}

// A page that starts with a blank line keeps it in the editor (HTML drops the first newline inside
// a textarea), so the first save does not lose it.
func TestBrowserLeadingNewlineSurvivesTheEditor(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	content := "\n\nIntro after two blank lines.\n"
	createPageInBrowser(b, app, "Blank", content)
	if got := b.eval(`document.querySelector('#page-content').value`); got != content {
		t.Fatalf("the editor shows %q", got)
	}
	var id int64
	if err := app.Store.DB.Get(&id, `SELECT id FROM pages ORDER BY id DESC LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	if got := storedPage(t, app, id).Content; got != content {
		t.Fatalf("stored %q", got)
	}
	b.do("a bad new-page form keeps the text", chromedp.Navigate(app.URL+"/pages/new"),
		chromedp.SetValue(chromedp.CSS(`input[name=title]`), strings.Repeat("x", 301)),
		chromedp.SetValue(chromedp.CSS(`textarea[name=content]`), content),
		chromedp.Click(chromedp.CSS(`[data-testid=create-page]`)))
	b.waitFor("the form again", `document.body.innerText.includes('longer than 300') && `+settled)
	if got := b.eval(`document.querySelector('textarea[name=content]').value`); got != content {
		t.Fatalf("the form shows %q", got)
	}
}
