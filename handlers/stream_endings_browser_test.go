package handlers_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// An answer the model stopped at its token limit is kept as complete but says it was cut off, and
// Continue asks for the rest in the same conversation.
func TestBrowserCutOffAnswerSaysSoAndContinueAsksForTheRest(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(call int64) handlerstest.Reply {
		if call == 1 {
			return handlerstest.Reply{Deltas: []string{"The three laws are: first,"}, Finish: "length"}
		}
		return handlerstest.Reply{Deltas: []string{"a body at rest stays at rest."}}
	})
	app := handlerstest.Start(t, handlerstest.WithUpstream(up))
	b := signInBrowser(t, app)
	b.do("open chat", chromedp.Navigate(app.URL+"/chat"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=welcome-message]`)))
	b.do("ask", chromedp.SendKeys(chromedp.CSS(`#query`), "Newton's laws?\n"))
	b.waitFor("the cut-off note", `document.querySelector('[data-role=assistant][data-status=complete] [data-testid=truncated]')`)
	if note := b.eval(`document.querySelector('[data-testid=truncated]').innerText`); !strings.Contains(note, "cut off at the token limit") {
		t.Fatalf("note %q", note)
	}
	b.waitFor("the composer to be usable", `!document.getElementById('send').disabled`)
	// Clicked where it is at that moment: the stream may still replace the finished message (and
	// its button) with the same markup, which leaves a node found earlier detached.
	b.waitFor("Continue to be clicked", `(() => { const c = document.querySelector('[data-testid=continue]'); if (!c) return false; c.click(); return true })()`)
	b.waitFor("the continuation", `document.querySelectorAll('[data-role=assistant][data-status=complete]').length === 2`)
	if got := strings.TrimSpace(b.eval(answerText)); got != "a body at rest stays at rest." {
		t.Errorf("continuation %q", got)
	}
	if n := up.Calls.Load(); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
	if b.eval(`String(document.querySelectorAll('[data-testid=truncated]').length)`) != "1" {
		t.Error("the whole continuation is marked cut off too")
	}
}
