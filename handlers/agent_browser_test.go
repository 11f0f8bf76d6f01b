package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// A guest chats with a public agent at /chat/{identifier}: no sidebar, the answer streams, a reload
// keeps the conversation, and signing up puts it in the new account's history.
func TestBrowserGuestChatSurvivesReloadAndSignUpAdoptsIt(t *testing.T) {
	app, ada := signedIn(t)
	createAgent(t, ada, agentForm("owl", "name", "Night Owl"))
	b := browser{t: t, ctx: handlerstest.Browser(t)}
	b.do("open the public link", chromedp.Navigate(app.URL+"/chat/owl"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=welcome-message]`)))
	if b.eval(`String(!!document.getElementById('history') || !!document.getElementById('history-toggle'))`) != "false" {
		t.Fatal("a guest sees the history sidebar")
	}
	if b.eval(`document.querySelector('[data-testid=agent-name]').innerText`) != "Night Owl" {
		t.Fatal("the header does not name the agent")
	}
	b.do("send", chromedp.SendKeys(chromedp.CSS(`#query`), "what is a parliament of owls\n"))
	b.waitFor("the answer", `document.querySelector('[data-role=assistant][data-status=complete] [data-testid=answer]')`)
	if b.eval(`location.pathname`) != "/chat/owl" {
		t.Fatalf("the guest's URL moved to %s", b.eval(`location.pathname`))
	}
	b.do("reload", chromedp.Reload())
	b.waitFor("the conversation after the reload", `document.querySelector('[data-testid=user-text]')?.innerText === 'what is a parliament of owls'`)
	b.waitFor("the stream to connect", `document.getElementById('conn-dot').dataset.state === 'connected'`)
	// (Click Send: chromedp types "\n" as a separate char event after the Enter that sent, which the
	// composer then keeps as a draft typed during the send.)
	b.do("send a second message", chromedp.SendKeys(chromedp.CSS(`#query`), "and a group of crows"), chromedp.Click(chromedp.CSS(`#send`)))
	b.waitFor("the second answer", `document.querySelectorAll('[data-role=assistant][data-status=complete]').length === 2`)
	b.waitFor("an empty composer", `document.getElementById('query').value === ''`)
	if got := b.eval(`getComputedStyle(document.querySelector('[data-testid=user-text]')).backgroundColor`); got != "rgb(225, 29, 72)" {
		t.Fatalf("the user's bubble is %s, not the agent's rose accent", got)
	}
	handlerstest.Screenshot(t, b.ctx, "guest")

	b.do("follow the sign-up invitation", chromedp.Click(chromedp.CSS(`[data-testid=guest-banner] a`)),
		chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), "newbie@example.com"),
		chromedp.SendKeys(chromedp.CSS(`#password`), "correct horse"),
		chromedp.Click(chromedp.CSS(`form[action="/signup"] button[type=submit]`)),
	)
	b.waitFor("the adopted conversation in the history", `[...document.querySelectorAll('[data-history-item]')].some(e => e.innerText.includes('what is a parliament of owls'))`)
	if got := b.eval(`String(document.querySelectorAll('[data-testid=user-text]').length)`); got != "2" {
		t.Fatalf("the adopted conversation shows %s user messages, want 2", got)
	}
}

// The widget works inside an iframe on another origin that its allow-list names: a message is sent
// and answered inside the frame.
func TestBrowserEmbedWorksInAnIframeOnAnotherOrigin(t *testing.T) {
	host := httptest.NewServer(nil) // started first so the agent can allow its origin
	t.Cleanup(host.Close)
	app, ada := signedIn(t)
	createAgent(t, ada, agentForm("owl", "name", "Widget Owl", "embed_origins", host.URL))
	host.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Shop</title><h1>A shop that embeds Parley</h1>
<iframe id="parley" src="%s/embed/agent/owl" width="420" height="620"></iframe>`, app.URL)
	})
	if u, _ := url.Parse(host.URL); u.Host == strings.TrimPrefix(app.URL, "http://") {
		t.Fatal("the host page must be another origin")
	}
	b := browser{t: t, ctx: handlerstest.Browser(t)}
	b.do("open the host page", chromedp.Navigate(host.URL))
	frame := iframeNode(t, b, `#parley`, `[data-testid=embed]`)
	in := chromedp.FromNode(frame)
	b.do("send inside the widget",
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=welcome-message]`), in),
		chromedp.SendKeys(chromedp.CSS(`#query`), "hello from the shop\n", in),
		chromedp.WaitVisible(chromedp.CSS(`[data-role=assistant][data-status=complete] [data-testid=answer]`), in),
	)
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	answer, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-role=assistant] [data-testid=answer]`), in))
	if err != nil || strings.TrimSpace(answer) == "" {
		t.Fatal("no answer text inside the widget")
	}
	handlerstest.Screenshot(t, b.ctx, "embedded")

	// An origin the allow-list does not name is refused the frame: the browser reports that (and
	// the first widget's stream, cut as the frame navigates away).
	handlerstest.AllowBrowserErrors(b.ctx, "frame-ancestors", "ERR_BLOCKED_BY_RESPONSE", "console.error: [object Event]")
	createAgent(t, ada, agentForm("shy-owl", "embed_origins", "https://elsewhere.example.com"))
	b.do("embed an agent that does not allow this origin", chromedp.Evaluate[chromedp.Void](
		fmt.Sprintf(`document.getElementById('parley').src = %q`, app.URL+"/embed/agent/shy-owl")))
	time.Sleep(time.Second)
	if frame := iframeDocument(t, b, `#parley`); frame != nil && strings.Contains(nodeText(t, b, frame), "composer") {
		t.Fatal("the browser showed a widget that does not allow this origin")
	}
}

// iframeNode waits until the iframe's document holds ready, and returns that document's node.
func iframeNode(t *testing.T, b browser, iframe, ready string) *chromedp.Node {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if doc := iframeDocument(t, b, iframe); doc != nil {
			ctx, cancel := context.WithTimeout(b.ctx, time.Second)
			nodes, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS(ready), chromedp.FromNode(doc), chromedp.AtLeast(0)))
			cancel()
			if err == nil && len(nodes) > 0 {
				return doc
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the iframe %s never showed %s", iframe, ready)
	return nil
}

// iframeDocument is the content document of the iframe, or nil.
func iframeDocument(t *testing.T, b browser, iframe string) *chromedp.Node {
	ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
	defer cancel()
	frames, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS(iframe)))
	if err != nil || len(frames) == 0 {
		return nil
	}
	frames[0].RLock()
	defer frames[0].RUnlock()
	return frames[0].ContentDocument
}

// nodeText is the HTML of the node's document element ("" when there is none).
func nodeText(t *testing.T, b browser, n *chromedp.Node) string {
	ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
	defer cancel()
	html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html"), chromedp.FromNode(n)))
	return html
}

// The floating chat button opens the default agent's widget on a signed-in page; the conversation
// keeps going across a (boosted) navigation.
func TestBrowserFloatingWidgetKeepsTheConversationAcrossPages(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app) // ada is the first account: an admin
	b.do("enable the widget", chromedp.Navigate(app.URL+"/agents"),
		chromedp.SendKeys(chromedp.CSS(`[data-testid=widget-agent]`), "auto"),
		chromedp.Click(chromedp.CSS(`form[action="/agents/widget"] button`)),
	)
	b.waitFor("the floating button", `document.querySelector('[data-testid=widget-button]')`)
	b.do("open it", chromedp.Click(chromedp.CSS(`[data-testid=widget-button]`)))
	frame := iframeNode(t, b, `#chat-widget-panel iframe`, `[data-testid=embed]`)
	in := chromedp.FromNode(frame)
	b.do("send inside the panel",
		chromedp.SendKeys(chromedp.CSS(`#query`), "hello from the widget", in),
		chromedp.Click(chromedp.CSS(`#send`), in),
		chromedp.WaitVisible(chromedp.CSS(`[data-role=assistant][data-status=complete]`), in),
	)
	b.do("go to another page", chromedp.Click(chromedp.CSS(`header a[href="/pages"]`)))
	b.waitFor("the pages page", `location.pathname === '/pages' && !document.querySelector('.htmx-request, .htmx-settling')`)
	if b.eval(`String(!document.getElementById('chat-widget-panel').classList.contains('hidden'))`) != "true" {
		t.Fatal("the panel closed on navigation")
	}
	frame = iframeNode(t, b, `#chat-widget-panel iframe`, `[data-testid=user-text]`)
	handlerstest.Screenshot(t, b.ctx, "widget")
	var n int
	_ = app.Store.DB.Get(&n, `SELECT count(*) FROM chat_exchange e JOIN users u ON u.id = e.user_id WHERE u.email = 'ada@example.com'`)
	if n != 1 {
		t.Fatalf("the widget's conversation is not in the account (%d conversations)", n)
	}
}
