package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// secondTab signs a second browser in to the account signInBrowser made and opens the editor of
// page id: another tab, with its own editor session.
func secondTab(t *testing.T, app *handlerstest.App, id int64) browser {
	two := browser{t: t, ctx: handlerstest.Browser(t)}
	two.do("sign in and open the page in a second tab",
		chromedp.Navigate(app.URL+"/signin"),
		chromedp.SendKeys(chromedp.CSS(`#email`), "ada@example.com"),
		chromedp.SendKeys(chromedp.CSS(`#password`), "correct horse"),
		chromedp.Click(chromedp.CSS(`form[action="/signin"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=welcome]`)),
		chromedp.Navigate(fmt.Sprintf("%s/pages/%d/edit", app.URL, id)),
		chromedp.WaitVisible(chromedp.CSS(`#page-content`)))
	return two
}

// A tab with no unsaved text shows, without a reload, what another tab saved and a proposal the
// other tab accepted, as soon as the page's event stream announces them.
func TestBrowserSecondTabSeesSavesAndAcceptedProposals(t *testing.T) {
	app := handlerstest.Start(t)
	one := signInBrowser(t, app)
	createPageInBrowser(one, app, "Report", methodsPage)
	two := secondTab(t, app, newestPageID(t, app))
	typeInEditor(one, "Old results.", "Results typed in tab 1.")
	one.waitFor("tab 1 saved", savedStatus)
	two.waitFor("tab 2 shows tab 1's save", `document.querySelector('#page-content').value.includes('Results typed in tab 1.')`)
	askInPanel(one, "rename section Methods to Approach", 1)
	one.eval(lastProposal + `.querySelector('[data-testid=accept]').click(), ''`)
	one.waitFor("accepted", `document.querySelector('#page-content').value.includes('## Approach')`)
	accepted := time.Now()
	two.waitFor("tab 2 shows the accepted proposal", `document.querySelector('#page-content').value.includes('## Approach') &&
		document.querySelector('#page-content').value.includes('Results typed in tab 1.')`)
	// The page's event stream brings it (there is no polling): well within a second on a quiet
	// machine; the bound leaves room for a loaded one.
	if took := time.Since(accepted); took > 2*time.Second {
		t.Errorf("tab 2 showed the accepted proposal %s after tab 1", took)
	} else {
		t.Logf("tab 2 showed the accepted proposal %s after tab 1", took.Round(time.Millisecond))
	}
	// Tab 2 types on from there: its save is based on the version it was shown, so no conflict.
	typeInEditor(two, "Intro text.", "Intro text, tab 2.")
	two.waitFor("tab 2 saved", savedStatus)
	if got := storedPage(t, app, newestPageID(t, app)).Content; !strings.Contains(got, "## Approach") || !strings.Contains(got, "Intro text, tab 2.") {
		t.Fatalf("stored %q", got)
	}
}

// An editor and another device (a second editor session over HTTP) on one page: edits of
// different lines merge (the editor ends up with both, the page holds both, the other text keeps
// its revision); edits of the same line show the conflict view, where "Keep my text" saves mine
// without losing the other text from the revisions, and "Use the saved version" offers the
// discarded typing as a download. The other device saves while the editor's own save waits out
// the autosave delay, so the editor's save is always the stale one.
func TestBrowserEditsFromAnotherDeviceMergeAndNeverLoseSavedText(t *testing.T) {
	app := handlerstest.Start(t)
	one := signInBrowser(t, app)
	createPageInBrowser(one, app, "Plan", tabsPage)
	id := newestPageID(t, app)
	device := app.Client(t)
	device.SignIn("ada@example.com", "correct horse")
	deviceSave := func(old, new string) string {
		t.Helper()
		p := storedPage(t, app, id)
		text := strings.Replace(p.Content, old, new, 1)
		if res := saveFrom(device, "device-2", id, p.Version, "Plan", text, nil); res.Status != http.StatusOK {
			t.Fatalf("the other device's save: %d %s", res.Status, res.Body)
		}
		return text
	}

	typeInEditor(one, "line three", "line three, editor")
	deviceSave("line one", "line one, device")
	one.waitFor("the editor merged", `document.querySelector('#save-status').textContent.includes('merged')`)
	both := strings.Replace(strings.Replace(tabsPage, "line one", "line one, device", 1), "line three", "line three, editor", 1)
	if got := one.eval(`document.querySelector('#page-content').value`); got != both {
		t.Fatalf("the editor shows %q, want both edits", got)
	}
	if got := storedPage(t, app, id).Content; got != both {
		t.Fatalf("stored %q, want both edits", got)
	}

	// The same line: the conflict view; "Keep my text" keeps the device's text in the revisions.
	typeInEditor(one, "line two", "line two as the editor has it")
	deviceText := deviceSave("line two", "line two as the device has it")
	one.waitFor("the conflict view", `document.querySelector('[data-testid=save-conflict]') !== null`)
	one.eval(`document.querySelector('[data-testid=keep-mine]').click(), ''`)
	one.waitFor("the editor saved its text", savedStatus)
	if got := storedPage(t, app, id).Content; !strings.Contains(got, "line two as the editor has it") {
		t.Fatalf("keep my text stored %q", got)
	}
	if !containsText(revisionTexts(t, app, id), deviceText) {
		t.Fatalf("the device's saved text is in no revision: %q", revisionTexts(t, app, id))
	}

	// Again, and "Use the saved version": the editor's typing is offered as a download.
	typeInEditor(one, "line two as the editor has it", "line two, the editor insists")
	deviceSave("line two as the editor has it", "line two, the device's last word")
	one.waitFor("the conflict view again", `document.querySelector('[data-testid=save-conflict]') !== null`)
	one.eval(`document.querySelector('[data-testid=use-saved]').click(), ''`)
	if got := one.eval(`document.querySelector('#page-content').value`); !strings.Contains(got, "line two, the device's last word") {
		t.Fatalf("the editor after use-saved shows %q", got)
	}
	copyText := one.eval(`(function(){ var href = document.querySelector('[data-testid=discarded-copy]').href;
		return decodeURIComponent(href.slice(href.indexOf(',') + 1)); })()`)
	if !strings.Contains(copyText, "line two, the editor insists") {
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
