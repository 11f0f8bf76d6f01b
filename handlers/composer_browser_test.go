package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/config"
	"parley/handlers/handlerstest"
)

// Rate limited, the banner counts the seconds down, Send stays off until zero and the typed
// message stays in the composer; then Send sends it.
func TestRateLimitBannerCountsDownAndKeepsTheMessage(t *testing.T) {
	// One message every 10 s once the burst is spent: the browser's message, sent a moment after
	// the burst, waits several seconds however slowly the machine runs.
	app := handlerstest.Start(t, func(c *config.Config) { c.MessagesPerMinute = 6 })
	b := signInBrowser(t, app)
	c := app.Client(t)
	c.SignIn("ada@example.com", "correct horse")
	for i := 0; ; i++ { // the whole burst, and whatever refilled while it was sent
		res := htmxPost(c, "/chat/messages", url.Values{"query": {fmt.Sprint("burst ", i)}, "idempotency_key": {fmt.Sprint("burst-", i)}})
		if res.Status == http.StatusTooManyRequests {
			break
		}
		if res.Status != http.StatusOK || i > 12 {
			t.Fatalf("send %d: %d, want 200 until the limit of 6 a minute answers 429", i, res.Status)
		}
	}
	b.do("open chat", chromedp.Navigate(app.URL+"/chat/new"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.do("send one too many", chromedp.SendKeys(chromedp.CSS(`#query`), "patient message\n"))
	b.waitFor("the banner", `document.getElementById('limit-banner')?.querySelector('[data-countdown]')`)
	first, _ := strconv.Atoi(b.eval(`document.querySelector('#limit-banner [data-countdown]').textContent`))
	if first < 2 {
		t.Fatalf("the banner starts at %d s; the test needs a wait of at least 2 s", first)
	}
	if got := b.eval(`document.getElementById('query').value + '|' + document.getElementById('send').disabled`); got != "patient message|true" {
		t.Fatalf("composer while limited = %q, want the message kept and Send off", got)
	}
	b.waitFor("the banner to count down", `(n => n >= 0 && n < `+strconv.Itoa(first)+`)(+(document.querySelector('#limit-banner [data-countdown]')?.textContent ?? '-1'))`)
	b.waitFor("Send to come back", `!document.getElementById('send').disabled && document.getElementById('limit-banner')?.textContent.includes('You can send again')`)
	if got := b.eval(`document.getElementById('query').value`); got != "patient message" {
		t.Fatalf("the composer holds %q after the wait", got)
	}
	b.do("send it", chromedp.Click(chromedp.CSS(`#send`)))
	b.waitFor("the sent message", `[...document.querySelectorAll('[data-testid=user-text]')].some(e => e.innerText === 'patient message')`)
}

// The composer grows with its text (up to a limit, then scrolls) and Stop takes Send's place,
// size and all, while an answer is written.
func TestComposerGrowsAndStopTakesSendsPlace(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: strings.Fields("a b c d e f g h i j k l m n o p q r s t"), Gap: 100 * time.Millisecond}
	})
	app := handlerstest.Start(t, handlerstest.WithUpstream(up))
	b := signInBrowser(t, app)
	id, _ := seedConversation(t, app, "ada@example.com", "Earlier", time.Now(), "q", "a")
	b.do("open", chromedp.Navigate(fmt.Sprintf("%s/sessions/%d/chat", app.URL, id)), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.waitFor("the stream", `document.getElementById('conn-dot').dataset.state === 'connected'`)
	height := `String(Math.round(document.getElementById('query').getBoundingClientRect().height))`
	one, _ := strconv.Atoi(b.eval(height))
	b.eval(`(() => { const q = document.getElementById('query'); q.focus(); q.value = 'one\ntwo\nthree\nfour'; q.dispatchEvent(new Event('input', {bubbles: true})); return ''; })()`)
	four, _ := strconv.Atoi(b.eval(height))
	if four < one+30 {
		t.Errorf("four lines are %d px high, one line %d px: the composer does not grow", four, one)
	}
	b.eval(`(() => { const q = document.getElementById('query'); q.value = Array(40).fill('line').join('\n'); q.dispatchEvent(new Event('input', {bubbles: true})); return ''; })()`)
	if many, _ := strconv.Atoi(b.eval(height)); many > 200 {
		t.Errorf("forty lines make the composer %d px high; it should stop growing", many)
	}
	b.eval(`(() => { const q = document.getElementById('query'); q.value = 'go on'; q.dispatchEvent(new Event('input', {bubbles: true})); return ''; })()`)
	rect := func(id string) string {
		return b.eval(`(() => { const r = document.getElementById('` + id + `').getBoundingClientRect(); return [r.x, r.y, r.width, r.height].map(Math.round).join(','); })()`)
	}
	sendAt := rect("send")
	b.do("send", chromedp.Click(chromedp.CSS(`#send`)))
	b.waitFor("Stop", `document.getElementById('stop') && !document.getElementById('stop').classList.contains('hidden')`)
	if got := rect("stop"); got != sendAt {
		t.Errorf("Stop is at %s, Send was at %s: it should take Send's place", got, sendAt)
	}
	if b.eval(`String(getComputedStyle(document.getElementById('send')).display)`) != "none" {
		t.Error("Send still shows beside Stop")
	}
	b.waitFor("the answer", `document.querySelector('[data-role=assistant][data-status=complete]:last-of-type') && document.querySelectorAll('[data-role=assistant][data-status=complete]').length === 2`)
	b.waitFor("Send back in its place", `!document.getElementById('send').classList.contains('hidden') && document.getElementById('stop').classList.contains('hidden')`)
	if got := rect("send"); got != sendAt {
		t.Errorf("Send came back at %s, was at %s", got, sendAt)
	}
}
