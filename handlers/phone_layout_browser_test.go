package handlers_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// headerFitJS lists what does not fit on the page at its width: a page wider than the window, a
// header whose content overflows, a truncated agent name, a button whose label wraps.
const headerFitJS = `(() => {
  const out = [];
  if (document.documentElement.scrollWidth > innerWidth + 1) out.push('page is ' + document.documentElement.scrollWidth + ' px wide');
  for (const h of document.querySelectorAll('header nav, #chat-pane > div:first-child')) {
    if (h.scrollWidth > h.clientWidth + 1) out.push('header overflows: ' + h.scrollWidth + ' > ' + h.clientWidth);
  }
  const name = document.querySelector('[data-testid=agent-name]');
  if (name && name.scrollWidth > name.clientWidth + 1) out.push('agent name truncated to ' + name.clientWidth + ' px of ' + name.scrollWidth);
  for (const b of document.querySelectorAll('#chat-pane > div:first-child button, #chat-pane > div:first-child a, #chat-pane > div:first-child summary')) {
    if (b.checkVisibility() && b.getBoundingClientRect().height > 36) out.push('control wraps: ' + b.innerText.trim() + ' ' + b.getBoundingClientRect().height + ' px');
  }
  return out.join('\n');
})()`

// At 390 px (a phone) the headers of a conversation, a team chat, a guest chat and the floating
// widget's panel fit: nothing
// overflows, the agent's name shows whole, no button label wraps.
func TestHeadersFitOnAPhone(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	c := app.Client(t)
	c.SignIn("ada@example.com", "correct horse")
	owl := createAgent(t, c, agentForm("owl", "name", "Helpful Owl", "models", "a\nb"))
	team := createTeam(t, c, "Wildlife Desk", "private", owl)
	id, _ := seedConversation(t, app, "ada@example.com", "A chat", time.Now(), "q", "a")
	for _, page := range []struct{ name, path string }{
		{"conversation", fmt.Sprintf("/sessions/%d/chat", id)},
		{"new chat", "/chat/new"},
		{"team chat", fmt.Sprintf("/teams/%d/chat", team)},
		{"agent chat", fmt.Sprintf("/agents/%d/chat", owl)},
	} {
		b.do(page.name, chromedp.EmulateViewport(390, 844), chromedp.Navigate(app.URL+page.path), chromedp.WaitVisible(chromedp.CSS(`#query`)))
		b.waitFor("settled", settled)
		if bad := b.eval(headerFitJS); bad != "" {
			t.Errorf("%s at 390 px:\n%s", page.name, bad)
		}
	}
	guest := browser{t: t, ctx: handlerstest.Browser(t)}
	guest.do("guest chat", chromedp.EmulateViewport(390, 844), chromedp.Navigate(app.URL+"/chat/owl"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	if bad := guest.eval(headerFitJS); bad != "" {
		t.Errorf("guest chat at 390 px:\n%s", bad)
	}
	// The floating widget's panel on a phone is the window less 2rem wide.
	guest.do("embed in the widget's panel", chromedp.EmulateViewport(358, 600), chromedp.Navigate(app.URL+"/embed/agent/owl"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	if bad := guest.eval(headerFitJS); bad != "" {
		t.Errorf("embed at 358 px:\n%s", bad)
	}
	handlerstest.Screenshot(t, guest.ctx, "widget-panel")
	handlerstest.Screenshot(t, b.ctx, "phone")
}
