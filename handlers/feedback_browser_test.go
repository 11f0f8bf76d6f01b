package handlers_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

const htmxIdle = `!document.querySelector('.htmx-added, .htmx-settling, .htmx-request')`

// 👍 with a reason, then 👎, survive a reload; pressing the pressed thumb withdraws the rating.
func TestBrowserFeedbackSurvivesAReload(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{"The tide ", "turns at noon."}}
	})
	app := handlerstest.Start(t, handlerstest.WithUpstream(up))
	b := signInBrowser(t, app)
	b.do("open chat", chromedp.Navigate(app.URL+"/chat/new"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.do("send", chromedp.SendKeys(chromedp.CSS(`#query`), "when does the tide turn?\n"))
	b.waitFor("the answer's thumbs", `document.querySelector('[data-role=assistant][data-status=complete] [data-testid=feedback-up]') && `+htmxIdle)

	b.do("thumbs up", chromedp.Click(chromedp.CSS(`[data-testid=feedback-up]`)))
	b.waitFor("👍 pressed and a reason field", `document.querySelector('[data-testid=feedback-up]').getAttribute('aria-pressed') === 'true' && document.querySelector('[data-testid=feedback-reason]') && `+htmxIdle)
	b.do("give a reason", chromedp.SendKeys(chromedp.CSS(`[data-testid=feedback-reason]`), "precise"), chromedp.Click(chromedp.CSS(`[data-testid=feedback-save]`)))
	b.waitFor("the reason saved", `document.querySelector('[data-testid=feedback-reason]').value === 'precise' && `+htmxIdle)
	var reason string
	for deadline := time.Now().Add(5 * time.Second); reason != "precise" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_ = app.Store.DB.Get(&reason, `SELECT feedback_reason FROM chat_message WHERE role = 'assistant'`)
	}
	if reason != "precise" {
		t.Fatalf("the stored reason is %q", reason)
	}

	reloadAndStream(b)
	b.waitFor("👍 still pressed with its reason after the reload",
		`document.querySelector('[data-testid=feedback-up]')?.getAttribute('aria-pressed') === 'true' && document.querySelector('[data-testid=feedback-reason]')?.value === 'precise' && `+htmxIdle)
	handlerstest.Screenshot(t, b.ctx, "rated")

	b.do("change to thumbs down", chromedp.Click(chromedp.CSS(`[data-testid=feedback-down]`)))
	b.waitFor("👎 pressed, 👍 not", `document.querySelector('[data-testid=feedback-down]').getAttribute('aria-pressed') === 'true' && document.querySelector('[data-testid=feedback-up]').getAttribute('aria-pressed') === 'false' && `+htmxIdle)
	reloadAndStream(b)
	b.waitFor("👎 after the reload", `document.querySelector('[data-testid=feedback-down]')?.getAttribute('aria-pressed') === 'true' && `+htmxIdle)

	// A rating given elsewhere (here through the API) shows on the open page without a reload.
	api := app.Client(t)
	api.SignIn("ada@example.com", "correct horse")
	var exchange, answer int64
	_ = app.Store.DB.QueryRow(`SELECT exchange_id, id FROM chat_message WHERE role = 'assistant'`).Scan(&exchange, &answer)
	cookieAPI(t, api).json("PUT", fmt.Sprintf("/api/chat/exchange/%d/messages/%d/feedback", exchange, answer), `{"feedback": 1, "reason": "from a script"}`, 200, nil)
	b.waitFor("the API's rating on the open page", `document.querySelector('[data-testid=feedback-up]')?.getAttribute('aria-pressed') === 'true' && document.querySelector('[data-testid=feedback-reason]')?.value === 'from a script' && `+htmxIdle)
	cookieAPI(t, api).json("PUT", fmt.Sprintf("/api/chat/exchange/%d/feedback", exchange), `0`, 200, nil)
	b.waitFor("👎 again", `document.querySelector('[data-testid=feedback-down]')?.getAttribute('aria-pressed') === 'true' && `+htmxIdle)

	b.do("withdraw", chromedp.Click(chromedp.CSS(`[data-testid=feedback-down]`)))
	b.waitFor("no rating", `document.querySelector('[data-testid=feedback]').dataset.rating === '' && !document.querySelector('[data-testid=feedback-reason]') && `+htmxIdle)
	reloadAndStream(b)
	b.waitFor("still no rating after the reload", `document.querySelector('[data-testid=feedback]')?.dataset.rating === '' && document.querySelector('[data-testid=feedback-up]').getAttribute('aria-pressed') === 'false'`)
}

// reloadAndStream reloads the page and waits for the conversation's stream to be open and its snapshot
// swapped in: the snapshot replaces the message list, so a click before it may land on an element
// that is about to be replaced.
func reloadAndStream(b browser) {
	b.t.Helper()
	b.do("reload", chromedp.Reload())
	b.waitFor("the stream", `document.getElementById('conn-dot')?.dataset.state === 'connected' && `+htmxIdle)
	time.Sleep(300 * time.Millisecond)
	b.waitFor("the snapshot to settle", htmxIdle)
}

// The account menu leads to the settings page, where a new API key is shown once and the address
// stays /account (a reload must not re-post the form).
func TestBrowserAPIKeyFromTheAccountMenu(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	b.do("open the account menu", chromedp.Navigate(app.URL+"/chat"), chromedp.Click(chromedp.CSS(`[data-testid=account-menu]`)))
	b.do("go to the account page", chromedp.Click(chromedp.CSS(`[data-testid=account-link]`)), chromedp.WaitVisible(chromedp.CSS(`#key-name`)))
	b.do("create a key", chromedp.SendKeys(chromedp.CSS(`#key-name`), "backup script"), chromedp.Click(chromedp.CSS(`[data-testid=create-key]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=new-key-value]`)))
	key := b.eval(`document.querySelector('[data-testid=new-key-value]').innerText`)
	if len(key) != 46 || b.eval(`location.pathname`) != "/account" {
		t.Fatalf("key %q at %s", key, b.eval(`location.pathname`))
	}
	handlerstest.Screenshot(t, b.ctx, "account")
	b.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid=api-keys]`)))
	if b.eval(`String(document.body.innerText.includes(`+"`"+key+"`"+`))`) != "false" || b.eval(`String(document.querySelectorAll('[data-testid=api-keys] tbody tr').length)`) != "1" {
		t.Fatal("after a reload the key is shown again, or the list is wrong")
	}
}
