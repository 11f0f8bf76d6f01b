package handlers_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// After signing out, Back (once or twice) shows nothing of the conversation or the account: the
// page comes from the server, which sends the sign-in page, never from htmx's history cache
// (nothing private is left in sessionStorage) or the back/forward cache. Signing out through htmx
// (a boosted form) and through a plain form post (full navigations, the bfcache's case) alike.
func TestBackAfterSignOutShowsNothingPrivate(t *testing.T) {
	for _, boosted := range []bool{true, false} {
		name := "boosted"
		if !boosted {
			name = "full-page"
		}
		t.Run(name, func(t *testing.T) { backAfterSignOut(t, boosted) })
	}
}

func backAfterSignOut(t *testing.T, boosted bool) {
	const secret = "my secret diagnosis"
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{"About your ", "confidential matter."}}
	})
	app := handlerstest.Start(t, handlerstest.WithUpstream(up))
	b := signInBrowser(t, app)
	b.do("open chat", chromedp.Navigate(app.URL+"/chat/new"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.do("send", chromedp.SendKeys(chromedp.CSS(`#query`), secret+"\n"))
	b.waitFor("the answer", `document.querySelector('[data-role=assistant][data-status=complete]')`)
	// Move on inside the app (boosted links), so the conversation is an htmx history entry.
	b.do("open Pages", chromedp.Click(chromedp.CSS(`nav a[href="/pages"]`)))
	b.waitFor("the pages list", `location.pathname === '/pages'`)
	b.do("back to the conversation", chromedp.NavigateBack())
	b.waitFor("the conversation again", `document.body?.innerText.includes('confidential matter')`)
	if !boosted {
		b.do("reload without htmx navigation", chromedp.Reload())
		b.waitFor("the conversation", `document.body?.innerText.includes('confidential matter')`)
		b.eval(`document.querySelector('form[action="/signout"]').setAttribute('hx-boost', 'false'), ''`)
	}
	b.do("open the account menu", chromedp.Click(chromedp.CSS(`[data-testid=account-menu]`)))
	b.do("sign out", chromedp.Click(chromedp.CSS(`form[action="/signout"] button`)))
	b.waitFor("signed out", `!document.querySelector('[data-testid=account-name]') && document.querySelector('a[href="/signin"]')`)

	for i := 1; i <= 2; i++ {
		b.do("Back", chromedp.NavigateBack())
		b.waitFor("a page from the server", `document.body && document.readyState === 'complete' && !document.querySelector('.htmx-request')`)
		b.waitFor("the sign-in form or a public page", `document.querySelector('#email') || document.querySelector('a[href="/signin"]')`)
		text := b.eval(`document.body.innerText`)
		for _, private := range []string{secret, "confidential matter", "ada@example.com", "Account menu"} {
			if strings.Contains(text, private) || strings.Contains(b.eval(`document.body.innerHTML`), private) {
				t.Fatalf("Back #%d after sign-out shows %q at %s:\n%.400s", i, private, b.eval(`location.pathname`), text)
			}
		}
	}
	if got := b.eval(`JSON.stringify(Object.keys(sessionStorage).map(k => k + '=' + sessionStorage.getItem(k).length))`); strings.Contains(got, "htmx-history-cache") {
		if cache := b.eval(`sessionStorage.getItem('htmx-history-cache') || ''`); strings.Contains(cache, "confidential") || strings.Contains(cache, secret) {
			t.Fatalf("sessionStorage still holds the conversation: %s", got)
		}
	}
}
