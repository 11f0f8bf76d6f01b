package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// iconAuditJS reports, as text lines, what breaks the icon rules on the page: emoji outside agent
// avatars (a person's choice), icons whose sprite symbol is missing or that draw nothing, and
// visible buttons, links and summaries without an accessible name.
const iconAuditJS = `(async () => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walker.nextNode());) {
    if (/\p{Extended_Pictographic}/u.test(n.textContent) && !n.parentElement.closest('[data-avatar], textarea, .prose')) out.push('emoji: ' + n.textContent.trim());
  }
  const uses = [...document.querySelectorAll('svg.icon use')];
  if (uses.length === 0) out.push('no icons on the page');
  const sprite = uses.length ? await (await fetch(uses[0].getAttribute('href').split('#')[0])).text() : '';
  const ids = new Set([...sprite.matchAll(/<symbol id="([^"]+)"/g)].map(m => m[1]));
  for (const u of uses) {
    const id = u.getAttribute('href').split('#')[1];
    if (!ids.has(id)) out.push('missing icon: ' + id);
    const svg = u.closest('svg'), r = svg.getBoundingClientRect();
    if (svg.checkVisibility() && (r.width < 8 || r.width > 40)) out.push('icon ' + id + ' is ' + r.width + ' px wide');
  }
  for (const el of document.querySelectorAll('button, a[href], summary')) {
    if (!el.checkVisibility()) continue;
    const name = (el.getAttribute('aria-label') || el.innerText || el.getAttribute('title') || '').trim();
    if (!name) out.push('no accessible name: ' + el.outerHTML.slice(0, 120));
  }
  return out.join('\n');
})()`

// evalAwait evaluates js, which returns a promise of a string, and waits for it.
func (b browser) evalAwait(js string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("eval %.200s: %v", js, err)
	}
	return s
}

// The chat page's controls draw SVG icons from the sprite (no emoji but the agents' avatars), each
// icon-only control has an accessible name, and the sprite is served from /static like htmx.
func TestIconsAreSVGsWithAccessibleNames(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	id := seedToolConversation(t, app)
	seedConversation(t, app, "ada@example.com", "Another chat", time.Now().Add(-time.Hour), "q", "a")
	b.do("open", chromedp.Navigate(fmt.Sprintf("%s/sessions/%d/chat", app.URL, id)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=feedback-up]`)))
	b.waitFor("settled", settled)
	b.eval(`document.querySelector("[data-history-item] a").focus(), ""`) // shows the item's actions (focus-within)
	for _, sel := range []string{"[data-testid=feedback-up]", "[data-testid=feedback-down]", "[data-testid=trash-link]", "[data-testid=rename]", "[data-testid=delete]", "#history-toggle", "[data-testid=tool-call]", "[data-testid=reasoning]"} {
		if b.eval(`String(!!document.querySelector('`+sel+` svg.icon use'))`) != "true" {
			t.Errorf("%s draws no SVG icon", sel)
		}
	}
	if problems := b.evalAwait(iconAuditJS); problems != "" {
		t.Errorf("icon problems:\n%s", problems)
	}
	for _, name := range []string{"Good answer", "Bad answer"} {
		if b.eval(`String(!!document.querySelector('button[aria-label="`+name+`"]'))`) != "true" {
			t.Errorf("no button named %q", name)
		}
	}
	handlerstest.Screenshot(t, b.ctx, "icons")
	src := b.eval(`document.querySelector('svg.icon use').getAttribute('href').split('#')[0]`)
	res := app.Client(t).Get(src)
	if res.Status != http.StatusOK || !strings.Contains(res.Header.Get("Content-Type"), "svg") || !strings.Contains(res.Body, "lucide") {
		t.Errorf("GET %s: %d %s %.80s", src, res.Status, res.Header.Get("Content-Type"), res.Body)
	}
}
