package handlers_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// Two tabs on one page: edits of different lines merge (each tab ends up with both, the page
// holds both, the other tab's text keeps its revision); edits of the same line show the conflict
// view, where "Keep my text" saves mine without losing the other text from the revisions, and
// "Use the saved version" offers the discarded typing as a download.
func TestBrowserTwoTabsMergeAndNeverLoseSavedText(t *testing.T) {
	app := handlerstest.Start(t)
	one := signInBrowser(t, app)
	createPageInBrowser(one, app, "Plan", tabsPage)
	id := newestPageID(t, app)
	// The second "tab" is a second browser signed in to the same account (its own editor session).
	two := browser{t: t, ctx: handlerstest.Browser(t)}
	two.do("sign in and open the page in a second tab",
		chromedp.Navigate(app.URL+"/signin"),
		chromedp.SendKeys(chromedp.CSS(`#email`), "ada@example.com"),
		chromedp.SendKeys(chromedp.CSS(`#password`), "correct horse"),
		chromedp.Click(chromedp.CSS(`form[action="/signin"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=welcome]`)),
		chromedp.Navigate(fmt.Sprintf("%s/pages/%d/edit", app.URL, id)),
		chromedp.WaitVisible(chromedp.CSS(`#page-content`)))

	typeInEditor(one, "line one", "line one, tab 1")
	one.waitFor("tab 1 saved", savedStatus)
	typeInEditor(two, "line three", "line three, tab 2")
	two.waitFor("tab 2 merged", `document.querySelector('#save-status').textContent.includes('merged')`)
	both := strings.Replace(strings.Replace(tabsPage, "line one", "line one, tab 1", 1), "line three", "line three, tab 2", 1)
	if got := two.eval(`document.querySelector('#page-content').value`); got != both {
		t.Fatalf("tab 2 shows %q, want both edits", got)
	}
	if got := storedPage(t, app, id).Content; got != both {
		t.Fatalf("stored %q, want both edits", got)
	}

	// The same line in both tabs: tab 1 saves first (merged with tab 2's edit), tab 2 conflicts.
	typeInEditor(one, "line two", "line two as tab 1 has it")
	one.waitFor("tab 1 saved again", `document.querySelector('#save-status').textContent.startsWith('Saved')`)
	tab1Text := storedPage(t, app, id).Content
	if !strings.Contains(tab1Text, "line two as tab 1 has it") || !strings.Contains(tab1Text, "line three, tab 2") {
		t.Fatalf("tab 1's save stored %q", tab1Text)
	}
	typeInEditor(two, "line two", "line two as tab 2 has it")
	two.waitFor("the conflict view", `document.querySelector('[data-testid=save-conflict]') !== null`)
	two.eval(`document.querySelector('[data-testid=keep-mine]').click(), ''`)
	two.waitFor("tab 2 saved its text", savedStatus)
	if got := storedPage(t, app, id).Content; !strings.Contains(got, "line two as tab 2 has it") {
		t.Fatalf("keep my text stored %q", got)
	}
	if !containsText(revisionTexts(t, app, id), tab1Text) {
		t.Fatalf("tab 1's saved text is in no revision: %q", revisionTexts(t, app, id))
	}

	// Tab 1 types on the old line two: "Use the saved version" keeps its typing as a download.
	typeInEditor(one, "line two as tab 1 has it", "line two, tab 1 insists")
	one.waitFor("the conflict view in tab 1", `document.querySelector('[data-testid=save-conflict]') !== null`)
	one.eval(`document.querySelector('[data-testid=use-saved]').click(), ''`)
	if got := one.eval(`document.querySelector('#page-content').value`); !strings.Contains(got, "line two as tab 2 has it") {
		t.Fatalf("tab 1 after use-saved shows %q", got)
	}
	copyText := one.eval(`(function(){ var href = document.querySelector('[data-testid=discarded-copy]').href;
		return decodeURIComponent(href.slice(href.indexOf(',') + 1)); })()`)
	if !strings.Contains(copyText, "line two, tab 1 insists") {
		t.Fatalf("the discarded copy holds %q", copyText)
	}
}

func containsText(texts []string, want string) bool {
	for _, s := range texts {
		if s == want {
			return true
		}
	}
	return false
}
