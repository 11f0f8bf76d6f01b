package handlers_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// distanceFromEnd is how far, in px, the conversation is scrolled from its end.
const distanceFromEnd = `(() => { const l = document.getElementById('messages'); return String(Math.round(l.scrollHeight - l.scrollTop - l.clientHeight)); })()`

// While an answer streams, the list follows it only while the reader is at the end: scrolled up,
// the reader keeps their place and gets "↓ New text", which takes them back and follows again.
// Typing into the composer meanwhile keeps the focus and the text there.
func TestStreamingFollowsOnlyAReaderAtTheEnd(t *testing.T) {
	deltas := make([]string, 70)
	for i := range deltas {
		deltas[i] = fmt.Sprintf("Line %d of a long answer.\n\n", i)
	}
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: deltas, Gap: 70 * time.Millisecond}
	})
	app := handlerstest.Start(t, handlerstest.WithUpstream(up))
	b := signInBrowser(t, app)
	b.do("open chat", chromedp.EmulateViewport(1280, 520), chromedp.Navigate(app.URL+"/chat/new"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.do("send", chromedp.SendKeys(chromedp.CSS(`#query`), "write a lot\n"))
	b.waitFor("a tall answer", `(`+answerText+`).includes('Line 14 ')`)
	if d, _ := strconv.Atoi(b.eval(distanceFromEnd)); d > 48 {
		t.Fatalf("while the reader is at the end the list is %d px from it", d)
	}
	b.do("type a draft meanwhile", chromedp.SendKeys(chromedp.CSS(`#query`), "my next question"))

	b.eval(`document.getElementById('messages').scrollTop = 0, ''`)
	before := b.eval(answerText)
	b.waitFor("the answer to grow while the reader is scrolled up", `(`+answerText+`) !== `+jsString(before))
	if top := b.eval(`String(document.getElementById('messages').scrollTop)`); top != "0" {
		t.Fatalf("the list moved the reader from the top to %s px while they read", top)
	}
	if b.eval(`String(!document.getElementById('new-text').classList.contains('hidden'))`) != "true" {
		t.Fatal(`no "New text" button while new text arrives below the reader`)
	}
	if got := b.eval(`document.activeElement.id + ':' + document.getElementById('query').value`); got != "query:my next question" {
		t.Fatalf("focus and composer = %q, want the composer still focused with the draft", got)
	}

	b.do("press New text", chromedp.Click(chromedp.CSS(`#new-text`)))
	time.Sleep(500 * time.Millisecond)
	if !strings.Contains(b.eval(answerText), "Line 69") {
		if d, _ := strconv.Atoi(b.eval(distanceFromEnd)); d > 48 {
			t.Fatalf("after New text the list is %d px from the end while the answer streams", d)
		}
	}
	b.waitFor("the end of the answer", `document.querySelector('[data-role=assistant][data-status=complete]')`)
	b.waitFor("the list at its end", distanceFromEnd+` <= 48`)
	if b.eval(`String(document.getElementById('new-text').classList.contains('hidden'))`) != "true" {
		t.Fatal(`"New text" still shows at the end of the list`)
	}
	if got := b.eval(`document.activeElement.id + ':' + document.getElementById('query').value`); got != "query:my next question" {
		t.Fatalf("after the answer, focus and composer = %q", got)
	}
	if got := b.eval(`document.getElementById('chat-announcer').textContent`); !strings.Contains(got, "Line 69 of a long answer.") {
		t.Fatalf("the live region announced %.200q, want the finished answer", got)
	}
}

// A reasoning panel and a tool-call panel the reader opened stay open when the stream renders
// their messages again (here: a reconnect's snapshot re-renders the whole list).
func TestOpenedDetailsStayOpenThroughUpdates(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	id := seedToolConversation(t, app)
	b.do("open", chromedp.Navigate(fmt.Sprintf("%s/sessions/%d/chat", app.URL, id)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=reasoning]`)))
	b.waitFor("the stream", `document.getElementById('conn-dot').dataset.state === 'connected'`)
	b.do("open the reasoning", chromedp.Click(chromedp.CSS(`[data-testid=reasoning]`)))
	b.do("open the tool call", chromedp.Click(chromedp.CSS(`[data-testid=tool-call]`)))
	openCount := `String(document.querySelectorAll('.msg details[open]').length)`
	if got := b.eval(openCount); got != "2" {
		t.Fatalf("%s details open after the clicks, want 2", got)
	}
	b.eval(`document.querySelectorAll('.msg').forEach(m => m.dataset.old = '1'), ''`)
	// Reconnect: a new stream sends a snapshot, which renders every message again.
	b.eval(`document.getElementById('chat-stream').remove(), document.getElementById('conn-reconnect').click(), ''`)
	b.waitFor("the re-rendered messages", `document.querySelector('.msg') && !document.querySelector('.msg[data-old]') && document.getElementById('conn-dot').dataset.state === 'connected'`)
	time.Sleep(200 * time.Millisecond)
	if got := b.eval(openCount); got != "2" {
		t.Fatalf("%s details open after the messages were rendered again, want 2", got)
	}
	b.do("close the reasoning", chromedp.Click(chromedp.CSS(`[data-testid=reasoning]`)))
	b.eval(`document.querySelectorAll('.msg').forEach(m => m.dataset.old = '1'), ''`)
	b.eval(`document.getElementById('chat-stream').remove(), document.getElementById('conn-reconnect').click(), ''`)
	b.waitFor("the re-rendered messages", `document.querySelector('.msg') && !document.querySelector('.msg[data-old]') && document.getElementById('conn-dot').dataset.state === 'connected'`)
	time.Sleep(200 * time.Millisecond)
	if got := b.eval(`[...document.querySelectorAll('.msg details[open]')].map(d => d.closest('.msg').dataset.role).join(',')`); got != "function_call" {
		t.Fatalf("open details after closing the reasoning: %q, want only the tool call", got)
	}
}

// seedToolConversation stores a turn with reasoning, a tool call and its result before the answer.
func seedToolConversation(t *testing.T, app *handlerstest.App) int64 {
	t.Helper()
	id, ids := seedConversation(t, app, "ada@example.com", "Tools at work", time.Now(), "look it up")
	parent := ids[0]
	rows := []struct{ role, content, tool, args, result string }{
		{"reasoning", "I should search the workspace first.", "", "", ""},
		{"function_call", "", "search_workspace", `{"query":"weather"}`, ""},
		{"function_call_output", "", "search_workspace", "", `{"results":[]}`},
		{"assistant", "Nothing found about the weather.", "", "", ""},
	}
	for i, r := range rows {
		var mid int64
		callID := ""
		if r.tool != "" {
			callID = "call_1"
		}
		if err := app.Store.DB.Get(&mid, `INSERT INTO chat_message (exchange_id, parent_id, position, role, content, status, tool_name, tool_call_id, tool_arguments, tool_result, search, created_at)
			VALUES ($1, $2, $3, $4, $5, 'complete', $6, $7, $8, $9, to_tsvector('english', $5), now()) RETURNING id`,
			id, parent, i+2, r.role, r.content, r.tool, callID, r.args, r.result); err != nil {
			t.Fatal(err)
		}
		parent = mid
	}
	return id
}

// Opening a conversation from the sidebar keeps the sidebar where it was scrolled, with the
// opened item in view and marked current.
func TestSidebarKeepsItsScrollWhenAConversationOpens(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	for i := range 28 {
		seedConversation(t, app, "ada@example.com", fmt.Sprintf("Conversation %02d", i), time.Now().Add(-time.Duration(i)*time.Minute), "q", "a")
	}
	b.do("open chat", chromedp.EmulateViewport(1280, 600), chromedp.Navigate(app.URL+"/chat/new"), chromedp.WaitVisible(chromedp.CSS(`[data-history-item]`)))
	b.waitFor("settled", settled)
	b.eval(`document.getElementById('history-list').scrollTop = 700, ''`)
	top := b.eval(`String(document.getElementById('history-list').scrollTop)`)
	if top == "0" {
		t.Fatal("the sidebar does not scroll; the test needs more items")
	}
	// The item in the middle of the visible part of the list.
	target := b.eval(`(() => { const l = document.getElementById('history-list').getBoundingClientRect(); const y = (l.top + l.bottom) / 2; return [...document.querySelectorAll('[data-history-item]')].find(e => { const r = e.getBoundingClientRect(); return r.top <= y && r.bottom >= y; }).id; })()`)
	b.do("open it", chromedp.Click(chromedp.CSS(`#`+target+` a`)))
	b.waitFor("the conversation", `location.pathname.startsWith('/sessions/') && document.querySelector('#`+target+` a[aria-current=page]')`)
	b.waitFor("settled", settled)
	if got := b.eval(`String(document.getElementById('history-list').scrollTop)`); got != top {
		t.Errorf("the sidebar's scroll went from %s to %s px", top, got)
	}
	inView := `(() => { const r = document.getElementById('` + target + `').getBoundingClientRect(); const l = document.getElementById('history-list').getBoundingClientRect(); return String(r.top >= l.top && r.bottom <= l.bottom); })()`
	if b.eval(inView) != "true" {
		t.Error("the opened conversation's item is out of the sidebar's view")
	}
}
