package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// browser wraps a chromedp context with test-failing helpers.
type browser struct {
	t   *testing.T
	ctx context.Context
}

func (b browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	b.doWithin(what, 20*time.Second, actions...)
}

// doWithin runs the actions as one step that may take up to within (do allows 20 s).
func (b browser) doWithin(what string, within time.Duration, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, within)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

func (b browser) eval(js string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		b.t.Fatalf("eval %s: %v", js, err)
	}
	return s
}

// waitFor polls a JavaScript condition until it is true. An evaluation that fails because the
// page is navigating (a reload, Back) is tried again.
func (b browser) waitFor(what, js string) {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string]("String(!!("+js+"))"))
		cancel()
		if err == nil && s == "true" {
			return
		}
		last = err
		time.Sleep(25 * time.Millisecond)
	}
	b.t.Fatalf("waiting for %s: %s never became true (last error: %v)", what, js, last)
}

func signInBrowser(t *testing.T, app *handlerstest.App) browser {
	app.Client(t).SignUp("ada@example.com", "correct horse")
	b := browser{t: t, ctx: handlerstest.Browser(t)}
	b.do("sign in",
		chromedp.Navigate(app.URL+"/signin"),
		chromedp.SendKeys(chromedp.CSS(`#email`), "ada@example.com"),
		chromedp.SendKeys(chromedp.CSS(`#password`), "correct horse"),
		chromedp.Click(chromedp.CSS(`form[action="/signin"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=welcome]`)),
	)
	b.loaded("the chat page", `[data-testid=welcome]`)
	return b
}

// loaded waits until the page showing selector has finished loading, its deferred scripts run
// (readyState "complete"), so that a key or a click is handled. A page a click navigated to can
// be visible while its scripts are still loading (under load, for hundreds of milliseconds):
// keys sent then do nothing.
func (b browser) loaded(what, selector string) {
	b.t.Helper()
	b.waitFor(what+" loaded", `document.readyState === 'complete' && document.querySelector(`+jsString(selector)+`)`)
}

const answerText = `document.querySelector('[data-role=assistant]:last-of-type [data-testid=answer]')?.innerText ?? ''`

// The answer grows through intermediate states, survives a reload mid-stream without duplicated
// text, and completes; the composer sends again afterwards.
func TestBrowserAnswerStreamsAndSurvivesAReload(t *testing.T) {
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango")
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		deltas := make([]string, len(words))
		for i, w := range words {
			deltas[i] = w + " "
		}
		return handlerstest.Reply{Deltas: deltas, Gap: 120 * time.Millisecond}
	})
	app := handlerstest.Start(t, handlerstest.WithUpstream(up))
	b := signInBrowser(t, app)
	// A short window, so the conversation is taller than it.
	b.do("open chat", chromedp.EmulateViewport(1280, 300), chromedp.Navigate(app.URL+"/chat"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=welcome-message]`)))
	b.do("type and press Enter", chromedp.SendKeys(chromedp.CSS(`#query`), "spell the alphabet\n"))
	b.waitFor("the user bubble", `document.querySelector('[data-testid=user-text]')?.innerText === 'spell the alphabet'`)

	seen := map[string]bool{}
	deadline := time.Now().Add(10 * time.Second)
	for len(seen) < 3 && time.Now().Before(deadline) {
		if s := b.eval(answerText); s != "" && !strings.Contains(s, "tango") {
			seen[s] = true
		}
		time.Sleep(40 * time.Millisecond)
	}
	if len(seen) < 2 {
		t.Fatalf("saw %d intermediate states of the answer, want at least 2", len(seen))
	}
	if b.eval(`String(document.getElementById('send').disabled)`) != "true" {
		t.Fatal("the Send button is enabled while the answer streams")
	}
	if !strings.HasPrefix(b.eval(`location.pathname`), "/sessions/") {
		t.Fatal("the URL did not move to the new conversation")
	}
	b.do("reload mid-answer", chromedp.Reload())
	b.waitFor("the answer to complete after the reload", `document.querySelector('[data-role=assistant][data-status=complete]')`)
	want := strings.Join(words, " ")
	if got := strings.TrimSpace(b.eval(answerText)); got != want {
		t.Fatalf("answer after reload:\n%q\nwant\n%q", got, want)
	}
	b.waitFor("the composer to be usable", `!document.getElementById('send').disabled`)
	b.waitFor("the connection dot", `document.getElementById('conn-dot').dataset.state === 'connected'`)
	// The page fits the window: the list scrolls, the composer stays in view.
	if fits := b.eval(`String(document.documentElement.scrollHeight <= innerHeight + 1 && document.getElementById('composer').getBoundingClientRect().bottom <= innerHeight)`); fits != "true" {
		t.Fatal("the chat page is taller than the window; the composer scrolls away")
	}
	if got := b.eval(`[...document.querySelectorAll('[data-history-item]')].map(e => e.innerText).join('|')`); !strings.Contains(got, "spell the alphabet") {
		t.Fatalf("the sidebar lists %q, want the new conversation", got)
	}
	handlerstest.Screenshot(t, b.ctx, "complete")
}

// Stop keeps the partial answer; an upstream error shows Retry, and Retry succeeds.
func TestBrowserStopAndRetry(t *testing.T) {
	var mode atomic.Int32 // 0: slow answer, 1: failing, 2: quick answer
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		switch mode.Load() {
		case 1:
			return handlerstest.Reply{Status: http.StatusBadGateway}
		case 2:
			return handlerstest.Reply{Deltas: []string{"Recovered ", "answer.\n\n```go\nfmt.Println(1)\n```\n"}}
		}
		return handlerstest.Reply{Deltas: strings.Split("one two three four five six seven eight nine ten eleven twelve", " "), Gap: 150 * time.Millisecond}
	})
	app := handlerstest.Start(t, handlerstest.WithUpstream(up))
	b := signInBrowser(t, app)
	b.do("open chat", chromedp.Navigate(app.URL+"/chat/new"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.do("send", chromedp.SendKeys(chromedp.CSS(`#query`), "count slowly\n"))
	b.waitFor("some text", `(`+answerText+`).includes('two')`)
	b.do("stop", chromedp.Click(chromedp.CSS(`#stop`)))
	b.waitFor("the stopped answer", `document.querySelector('[data-testid=stopped]')`)
	partial := b.eval(answerText)
	if partial == "" || strings.Contains(partial, "twelve") {
		t.Fatalf("after Stop the answer is %q", partial)
	}

	mode.Store(1)
	b.waitFor("the composer to be usable", `!document.getElementById('send').disabled`)
	b.do("send again", chromedp.SendKeys(chromedp.CSS(`#query`), "try again\n"))
	// Wait for htmx to settle the swap too: until then the new button has no hx-post handler.
	b.waitFor("the Retry button", `document.querySelector('[data-testid=retry]') && !document.querySelector('.htmx-added, .htmx-settling')`)
	if msg := b.eval(`document.querySelector('[data-testid=answer-error]').innerText`); !strings.Contains(msg, "502") {
		t.Fatalf("error shown: %q", msg)
	}
	if b.eval(`document.getElementById('conn-banner').classList.contains('hidden') + ''`) != "true" {
		t.Fatal("a failed answer shows the connection-lost banner")
	}
	mode.Store(2)
	b.do("retry", chromedp.Click(chromedp.CSS(`[data-testid=retry]`)))
	b.waitFor("the retried answer", `(`+answerText+`).includes('Recovered answer.')`)
	b.waitFor("it completes", `document.querySelectorAll('[data-role=assistant][data-status=complete]').length === 1`)
	// The send's answer and the stream both carried the new messages: each shows once.
	if n := b.eval(`document.querySelectorAll('[data-testid=user-text]').length + '/' + new Set([...document.querySelectorAll('.msg')].map(e => e.id)).size + '/' + document.querySelectorAll('.msg').length`); n != "2/4/4" {
		t.Fatalf("user messages / distinct / all message elements = %s, want 2/4/4", n)
	}
	b.waitFor("a Copy button on the code block", `document.querySelector('[data-testid=answer] .code-block .code-copy')`)
}

// Model output with raw HTML, scripts, javascript: links and htmx attributes renders inert.
func TestBrowserHostileAnswerRendersInert(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{
			"Look: <img src=x onerror=\"window.pwned=1\"> ",
			"<script>window.pwned=2</script> ",
			"[click](javascript:window.pwned=3) ",
			"<div hx-get=\"/signout\" hx-trigger=\"load\">x</div> ",
			"<a href=\"/x\" onclick=\"window.pwned=4\">y</a> done",
		}}
	})
	app := handlerstest.Start(t, handlerstest.WithUpstream(up))
	b := signInBrowser(t, app)
	b.do("open chat", chromedp.Navigate(app.URL+"/chat/new"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.do("send", chromedp.SendKeys(chromedp.CSS(`#query`), "be hostile\n"))
	b.waitFor("the answer", `document.querySelector('[data-role=assistant][data-status=complete]')`)
	time.Sleep(300 * time.Millisecond) // give any injected trigger time to fire
	if got := b.eval(`String(window.pwned)`); got != "undefined" {
		t.Fatalf("injected code ran: window.pwned = %s", got)
	}
	answer := `document.querySelector('[data-role=assistant] [data-testid=answer]')`
	for _, sel := range []string{"img", "script", "[onerror]", "[onclick]", "[hx-get]", "a[href^='javascript']"} {
		if n := b.eval(answer + `.querySelectorAll("` + sel + `").length + ''`); n != "0" {
			t.Fatalf("the answer contains %s (%s of them)", sel, n)
		}
	}
	// Still signed in: the hx-get="/signout" never fired.
	b.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid=account-name]`)))
}

// On a phone the history sidebar is hidden and the ☰ button opens it over the chat.
func TestBrowserHistoryToggleOnAPhone(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	b.do("phone-sized chat", chromedp.EmulateViewport(390, 800), chromedp.Navigate(app.URL+"/chat"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	visible := `getComputedStyle(document.getElementById('history')).display !== 'none'`
	if b.eval("String("+visible+")") != "false" {
		t.Fatal("the sidebar shows on a phone before it is asked for")
	}
	b.do("open history", chromedp.Click(chromedp.CSS(`#history-toggle`)))
	b.waitFor("the sidebar", visible)
	handlerstest.Screenshot(t, b.ctx, "phone-history")
	b.do("tap beside it", chromedp.MouseClickXY(350, 400))
	b.waitFor("the sidebar to hide", "!("+visible+")")
}
