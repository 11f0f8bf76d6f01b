package handlers_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"parley/handlers/handlerstest"
)

const savedStatus = `document.querySelector('#save-status').textContent === 'Saved'`

// The first change after opening a page is saved like every later one, whatever the change: one
// keystroke, one paste, or select-all + Delete. Each is in the database and in the editor after a
// reload.
func TestBrowserFirstEditAfterOpeningAPageIsSaved(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	for _, tc := range []struct {
		name string
		edit []chromedp.Action[chromedp.Void]
		want string
	}{
		{"one keystroke", []chromedp.Action[chromedp.Void]{
			focusEditor("ta.value.length, ta.value.length"),
			chromedp.KeyEvent("!"),
		}, methodsPage + "!"},
		{"one paste", []chromedp.Action[chromedp.Void]{
			focusEditor("0, 0"),
			chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
				_, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: "Pasted line.\n"})
				return err
			}),
		}, "Pasted line.\n" + methodsPage},
		{"select all and Delete", []chromedp.Action[chromedp.Void]{
			focusEditor("0, ta.value.length"),
			chromedp.KeyEvent(kb.Delete),
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := browser{t: t, ctx: b.ctx}
			createPageInBrowser(b, app, "First edit", methodsPage)
			id := newestPageID(t, app)
			b.do(tc.name, tc.edit...)
			b.waitFor("saved", savedStatus+` && `+settled)
			if got := storedPage(t, app, id).Content; got != tc.want {
				t.Fatalf("stored %q, want %q", got, tc.want)
			}
			b.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#page-content`)))
			if got := b.eval(`document.querySelector('#page-content').value`); got != tc.want {
				t.Fatalf("after a reload the editor holds %q, want %q", got, tc.want)
			}
		})
	}
}

// Leaving the editor with text that is not saved yet asks first (the browser's beforeunload
// prompt), and the text is saved meanwhile.
func TestBrowserLeavingWithUnsavedTextWarns(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	createPageInBrowser(b, app, "Leaving", methodsPage)
	id := newestPageID(t, app)
	prompts := make(chan page.DialogType, 4)
	dialogs := chromedp.Events(b.ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			prompts <- ev.Type
			// Stay on the page.
			_, _ = chromedp.Call(b.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	b.do("type and leave at once",
		focusEditor("ta.value.length, ta.value.length"),
		chromedp.KeyEvent("?"),
	)
	b.eval(`location.href = '/pages', ''`)
	select {
	case typ := <-prompts:
		if typ != page.DialogTypeBeforeunload {
			t.Fatalf("dialog %q, want beforeunload", typ)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("leaving with unsaved text did not ask")
	}
	b.waitFor("saved", savedStatus)
	if got := storedPage(t, app, id).Content; !strings.HasSuffix(got, "?") {
		t.Fatalf("stored %q, want the typed ?", got)
	}
}

// focusEditor focuses the editor's text and selects the range from, to (JavaScript expressions
// over ta, the textarea).
func focusEditor(fromTo string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[string](`(function(){ var ta = document.querySelector('#page-content'); ta.focus(); ta.setSelectionRange(`+fromTo+`); return ''; })()`)(ctx, t)
		return err
	})
}

// A save the network refuses keeps the text, says so, and is retried until it goes through.
func TestBrowserFailedSaveKeepsTheTextAndRetries(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	handlerstest.AllowBrowserErrors(b.ctx, "request failed") // the saves this test blocks
	createPageInBrowser(b, app, "Flaky", methodsPage)
	id := newestPageID(t, app)
	block := func(patterns ...string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			var ps []*network.BlockPattern
			for _, p := range patterns {
				ps = append(ps, &network.BlockPattern{URLPattern: p, Block: true})
			}
			_, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: ps})
			return err
		})
	}
	b.do("cut the saves off", block(app.URL+"/pages/*"))
	b.do("type", focusEditor("ta.value.length, ta.value.length"), chromedp.KeyEvent("!"))
	b.waitFor("the failure shown", `document.querySelector('#save-status').textContent.includes('retrying')`)
	if got := storedPage(t, app, id).Content; got != methodsPage {
		t.Fatalf("stored %q while the network was cut", got)
	}
	if got := b.eval(`document.querySelector('#page-content').value`); got != methodsPage+"!" {
		t.Fatalf("the editor lost the typing: %q", got)
	}
	b.do("restore the network", block())
	b.waitFor("saved by a retry", savedStatus)
	if got := storedPage(t, app, id).Content; got != methodsPage+"!" {
		t.Fatalf("stored %q after the retry", got)
	}
}

func newestPageID(t *testing.T, app *handlerstest.App) int64 {
	t.Helper()
	var id int64
	if err := app.Store.DB.Get(&id, `SELECT id FROM pages ORDER BY id DESC LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	return id
}
