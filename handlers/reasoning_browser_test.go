package handlers_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// A model that writes its reasoning inline (<think>…</think>, tags cut across deltas) shows it as
// a collapsed Reasoning item above a clean answer: no tags, and no reasoning, in the bubble.
func TestBrowserThinkTagsShowACollapsedReasoningItemAndACleanAnswer(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{"<thi", "nk>\nThe person asks about ", "tides; the Moon explains them.\n</th", "ink>\n\n", "Tides follow ", "the **Moon**."}}
	})
	app := handlerstest.Start(t, handlerstest.WithUpstream(up))
	b := signInBrowser(t, app)
	b.do("open chat", chromedp.Navigate(app.URL+"/chat"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=welcome-message]`)))
	b.do("ask", chromedp.SendKeys(chromedp.CSS(`#query`), "why tides?\n"))
	b.waitFor("the answer to complete", `document.querySelector('[data-role=assistant][data-status=complete]')`)
	b.waitFor("the reasoning item", `document.querySelector('[data-role=reasoning] details')`)

	if got := strings.TrimSpace(b.eval(answerText)); got != "Tides follow the Moon." {
		t.Errorf("answer bubble %q, want the clean answer", got)
	}
	if html := b.eval(`document.querySelector('[data-role=assistant] [data-testid=answer]').innerHTML`); strings.Contains(html, "think") || strings.Contains(html, "Moon explains") {
		t.Errorf("the answer holds reasoning or tags: %s", html)
	}
	if open := b.eval(`String(document.querySelector('[data-role=reasoning] details').open)`); open != "false" {
		t.Error("the reasoning item is open; it should start collapsed")
	}
	b.do("open the reasoning", chromedp.Click(chromedp.CSS(`[data-role=reasoning] summary`)))
	if got := strings.TrimSpace(b.eval(`document.querySelector('[data-role=reasoning] details p').innerText`)); got != "The person asks about tides; the Moon explains them." {
		t.Errorf("reasoning item %q", got)
	}
	if order := b.eval(`[...document.querySelectorAll('[data-role]')].map(e => e.dataset.role).join(',')`); order != "user,reasoning,assistant" {
		t.Errorf("items %s, want the reasoning between the question and the answer", order)
	}
	handlerstest.Screenshot(t, b.ctx, "think-tags")
}
