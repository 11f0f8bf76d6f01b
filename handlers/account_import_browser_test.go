package handlers_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// A person uploads ChatGPT's export on Account → Import and watches it: the row shows the import
// storing (held there by a concurrent transaction on the first conversation's import key, as a
// slow database would), then the result; the conversations are in the sidebar and searchable.
func TestBrowserImportPageShowsProgressThenTheResult(t *testing.T) {
	app := handlerstest.Start(t)
	ctx := handlerstest.Browser(t)
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		s, err := chromedp.Run(sctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	step("sign up",
		chromedp.Navigate(app.URL+"/signup"),
		chromedp.SendKeys(chromedp.CSS(`#email`), "ada@example.com"),
		chromedp.SendKeys(chromedp.CSS(`#password`), "correct horse battery"),
		chromedp.Click(chromedp.CSS(`form[action="/signup"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=welcome]`)),
	)
	step("open Account → Import",
		chromedp.Navigate(app.URL+"/account"),
		chromedp.Click(chromedp.CSS(`[data-testid=import-link]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=import-form]`)),
	)

	// Hold the first conversation's import key in an open transaction: the import waits on it.
	hold, err := app.Store.DB.BeginTxx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback()
	if _, err := hold.Exec(`INSERT INTO chat_exchange (user_id, title, import_source, import_key)
		SELECT id, 'held', 'chatgpt', '6a1f0c2e-0001-4000-8000-000000000001' FROM users WHERE email = 'ada@example.com'`); err != nil {
		t.Fatal(err)
	}
	file, _ := filepath.Abs("../imports/testdata/chatgpt-conversations.json")
	step("upload the export",
		chromedp.SetUploadFiles(chromedp.CSS(`#import-file`), []string{file}),
		chromedp.Click(chromedp.CSS(`[data-testid=import-submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=import-progress]`)),
	)
	step("wait for the storing phase",
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=import-progress]')?.textContent.includes('Storing conversations… 0 of 2')`,
			chromedp.WithPollingTimeout(15*time.Second)))
	if got := text(`[data-testid=import]`); !strings.Contains(got, "chatgpt-conversations.json") || !strings.Contains(got, "ChatGPT export") {
		t.Fatalf("running import row %q", got)
	}
	handlerstest.Screenshot(t, ctx, "progress")
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	step("the row turns into the result", chromedp.WaitVisible(chromedp.CSS(`[data-testid=import-done]`)))
	if got := text(`[data-testid=import-done]`); !strings.Contains(got, "Imported 2 conversations (11 messages).") {
		t.Fatalf("result %q", got)
	}
	step("open the history",
		chromedp.Click(chromedp.CSS(`[data-testid=import-done] a[href="/chat"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#history-list`)),
	)
	if got := text(`#history-list`); !strings.Contains(got, "Branches, tools and a picture") || !strings.Contains(got, "日本語") {
		t.Fatalf("sidebar %q", got)
	}
	handlerstest.Screenshot(t, ctx, "history")
}
