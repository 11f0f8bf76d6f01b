package handlers_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// A search finds a word from the middle of an old answer, and opening the hit scrolls to it, even
// when the answer is older than the window a conversation opens with.
func TestBrowserSearchOpensTheOldAnswerAtTheMatch(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	texts := make([]string, 120)
	for i := range texts {
		texts[i] = fmt.Sprintf("ordinary message %d about the weather", i)
	}
	texts[21] = strings.Repeat("Some long preamble sentence. ", 30) + "The password hint mentions zanzibar somewhere. " + strings.Repeat("And a long tail sentence. ", 30)
	id, ids := seedConversation(t, app, "ada@example.com", "Old travel chat", time.Now().Add(-72*time.Hour), texts...)
	seedConversation(t, app, "ada@example.com", "Newer chat", time.Now(), "hello", "hi")

	b.do("open chat", chromedp.Navigate(app.URL+"/chat/new"), chromedp.WaitVisible(chromedp.CSS(`#history-search`)))
	b.do("search", chromedp.SendKeys(chromedp.CSS(`#history-search`), "zanzibar"))
	b.waitFor("a hit", `document.querySelector('[data-testid=search-hit] mark')?.innerText.toLowerCase() === 'zanzibar'`)
	if b.eval(`String(document.getElementById('history-browse').classList.contains('hidden'))`) != "true" {
		t.Fatal("the list still shows beside the results")
	}
	b.do("open the hit", chromedp.Click(chromedp.CSS(`[data-testid=search-hit]`)))
	target := fmt.Sprintf("message-%d", ids[21])
	b.waitFor("the conversation", fmt.Sprintf(`location.pathname === '/sessions/%d/chat' && document.getElementById('%s')`, id, target))
	b.waitFor("the stream", `document.getElementById('conn-dot').dataset.state === 'connected'`)
	time.Sleep(300 * time.Millisecond) // let any late scroll happen
	inView := fmt.Sprintf(`(() => { const r = document.getElementById('%s').getBoundingClientRect(); const l = document.getElementById('messages').getBoundingClientRect(); return r.bottom > l.top && r.top < l.bottom; })()`, target)
	if b.eval("String("+inView+")") != "true" {
		t.Fatal("the matching answer is not scrolled into view")
	}
	if b.eval(fmt.Sprintf(`String(document.getElementById('%s').classList.contains('msg-found'))`, target)) != "true" {
		t.Fatal("the matching answer is not marked")
	}
}

// Delete moves a conversation out of the sidebar with an Undo toast; Undo brings it back.
func TestBrowserDeleteThenUndoRestores(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	keep, _ := seedConversation(t, app, "ada@example.com", "Keep me", time.Now(), "q", "a")
	gone, _ := seedConversation(t, app, "ada@example.com", "Delete me", time.Now().Add(-time.Minute), "q", "a")
	b.do("open", chromedp.Navigate(fmt.Sprintf("%s/sessions/%d/chat", app.URL, keep)), chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#history-%d`, gone))))
	b.waitFor("settled", settled)
	b.eval(fmt.Sprintf(`document.querySelector('#history-%d [data-testid=delete]').click(), ''`, gone))
	b.waitFor("the item to go", fmt.Sprintf(`!document.getElementById('history-%d')`, gone))
	b.waitFor("the toast", `!document.getElementById('undo-toast').classList.contains('hidden')`)
	b.waitFor("settled", settled)
	b.do("undo", chromedp.Click(chromedp.CSS(`[data-testid=undo]`)))
	b.waitFor("the item to return", fmt.Sprintf(`document.querySelector('#history-%d [data-testid=history-title]')?.innerText === 'Delete me'`, gone))
	if b.eval(fmt.Sprintf(`String(document.querySelector('#history-%d a').getAttribute('aria-current'))`, keep)) != "page" {
		t.Fatal("the open conversation lost its highlight after the refresh")
	}
	handlerstest.Screenshot(t, b.ctx, "restored")

	// Deleting the open conversation starts a new one, still offering Undo.
	b.eval(fmt.Sprintf(`document.querySelector('#history-%d [data-testid=delete]').click(), ''`, keep))
	b.waitFor("a new conversation", `location.pathname === '/chat/new' && document.querySelector('[data-testid=welcome-message]')`)
	b.waitFor("the toast", `!document.getElementById('undo-toast').classList.contains('hidden')`)
	b.waitFor("settled", settled+` && document.readyState === 'complete'`)
	b.eval(`document.querySelector('[data-testid=undo]').click(), ''`)
	b.waitFor("the item to return", fmt.Sprintf(`document.getElementById('history-%d')`, keep))
}

// Regenerate shows ‹ 2/2 ›, and the switcher moves between the two answers.
func TestBrowserRegenerateShowsVersionsAndSwitches(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(n int64) handlerstest.Reply {
		// Streamed slowly, so the finished answer and its ‹ n/m › arrive on the stream.
		return handlerstest.Reply{Deltas: []string{"Answer ", "number ", fmt.Sprintf("%d.", n)}, Gap: 150 * time.Millisecond}
	})
	app := handlerstest.Start(t, handlerstest.WithUpstream(up))
	b := signInBrowser(t, app)
	b.do("open chat", chromedp.Navigate(app.URL+"/chat/new"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.do("send", chromedp.SendKeys(chromedp.CSS(`#query`), "pick a number\n"))
	b.waitFor("the answer", `(`+answerText+`) === 'Answer number 1.'`)
	b.waitFor("settled", settled)
	b.eval("document.querySelector('[data-role=assistant] [data-testid=regenerate]').click(), ''")
	b.waitFor("the second answer", `(`+answerText+`) === 'Answer number 2.'`)
	b.waitFor("the label", `document.querySelector('[data-testid=version-label]')?.innerText === '2/2'`)
	b.waitFor("settled", settled)
	b.eval("document.querySelector('[data-testid=version-prev]').click(), ''")
	b.waitFor("the first answer again", `(`+answerText+`) === 'Answer number 1.' && document.querySelector('[data-testid=version-label]')?.innerText === '1/2'`)
	// The new pane's stream opens and sends its snapshot; click once that has landed.
	b.waitFor("the stream", `document.getElementById('conn-dot').dataset.state === 'connected'`)
	time.Sleep(300 * time.Millisecond)
	b.waitFor("settled", settled)
	b.eval("document.querySelector('[data-testid=version-next]').click(), ''")
	b.waitFor("the second answer again", `(`+answerText+`) === 'Answer number 2.' && document.querySelector('[data-testid=version-label]')?.innerText === '2/2'`)
	b.do("reload", chromedp.Reload())
	b.waitFor("the label after a reload", `document.querySelector('[data-testid=version-label]')?.innerText === '2/2'`)
	handlerstest.Screenshot(t, b.ctx, "versions")
}

// A long conversation opens at its end with its latest messages; scrolling up loads older ones
// above without moving what is being read.
func TestBrowserOlderMessagesLoadOnScrollKeepingPlace(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	texts := make([]string, 100)
	for i := range texts {
		texts[i] = fmt.Sprintf("message %d", i+1)
	}
	id, ids := seedConversation(t, app, "ada@example.com", "Long", time.Now(), texts...)
	b.do("open", chromedp.Navigate(fmt.Sprintf("%s/sessions/%d/chat", app.URL, id)), chromedp.WaitVisible(chromedp.CSS(`#older-messages`)))
	b.waitFor("the stream", `document.getElementById('conn-dot').dataset.state === 'connected'`)
	b.waitFor("the end in view", `(() => { const l = document.getElementById('messages'); return l.scrollTop + l.clientHeight >= l.scrollHeight - 2; })()`)
	if n := b.eval(`String(document.querySelectorAll('#message-list .msg').length)`); n != "40" {
		t.Fatalf("%s messages rendered, want 40", n)
	}
	offset := fmt.Sprintf(`String(Math.round(document.getElementById('message-%d').getBoundingClientRect().top - document.getElementById('messages').getBoundingClientRect().top))`, ids[60])
	b.eval(`document.getElementById('messages').scrollTop = 0, ''`)
	before := b.eval(offset)
	b.waitFor("older messages", `document.querySelectorAll('#message-list .msg').length === 80`)
	b.waitFor("settled", settled)
	// The message that was at the top stays where it was instead of jumping to the end or the start.
	var was, is int
	fmt.Sscan(before, &was)
	fmt.Sscan(b.eval(offset), &is)
	if is < was-40 || is > was+40 {
		t.Fatalf("the message read before moved from %d to %d px from the top", was, is)
	}
	b.eval(`document.getElementById('messages').scrollTop = 0, ''`)
	b.waitFor("the oldest messages", `document.querySelectorAll('#message-list .msg').length === 100 && !document.getElementById('older-messages')`)
}
