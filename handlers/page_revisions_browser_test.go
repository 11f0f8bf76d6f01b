package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"parley/handlers/handlerstest"
)

// The revisions panel works from the keyboard: ↓ moves between rows (focus visible), Enter opens
// the row's diff and Restore right under it with the row highlighted, Enter again closes it; rows
// say +a −d and the sections touched; ticking two rows compares them.
func TestBrowserRevisionsPanelOpensTheDiffUnderTheSelectedRowAndComparesTwo(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	createPageInBrowser(b, app, "Report", methodsPage)
	id := newestPageID(t, app)
	c := app.Client(t)
	c.SignIn("ada@example.com", "correct horse")
	text := methodsPage
	for v, change := range [][2]string{{"Old results.", "Results v2."}, {"Old methods.", "Methods v3."}, {"Intro text.", "Intro v4."}} {
		text = strings.Replace(text, change[0], change[1], 1)
		if r := save(c, id, v+1, "Report", text); r.Status != http.StatusOK {
			t.Fatalf("save v%d: %d", v+2, r.Status)
		}
	}
	b.do("reload and open the revisions", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#page-content`)),
		chromedp.Click(chromedp.CSS(`#revisions-toggle`)))
	b.waitFor("four rows", `document.querySelectorAll('#revision-list [data-revision-row]').length === 4 && `+settled)
	if got := b.eval(`Array.from(document.querySelectorAll('#revision-list li')).map(li => li.querySelector('[data-testid=revision-lines]').textContent + ' ' + (li.querySelector('[data-testid=revision-sections]') || {textContent: ''}).textContent).join(' | ')`); got != "+1 −1 Report | +1 −1 Methods | +1 −1 Results | +15 −0 Report · Methods · Step 1 · Results" {
		t.Fatalf("rows say %q", got)
	}
	const second = `document.querySelectorAll('#revision-list li')[1]`
	b.do("focus the first row, ↓ to the second, Enter",
		chromedp.Focus(chromedp.CSS(`#revision-list [data-revision-row]`)),
		chromedp.KeyEvent(kb.ArrowDown))
	if got := b.eval(`String(document.activeElement === ` + second + `.querySelector('[data-revision-row]') && document.activeElement.matches(':focus-visible'))`); got != "true" {
		t.Fatalf("↓ did not move the visible focus to the second row")
	}
	b.do("Enter", chromedp.KeyEvent(kb.Enter))
	b.waitFor("the diff under the second row", second+`.getAttribute('aria-current') === 'true' &&
		!!`+second+`.querySelector('[data-revision-detail] [data-testid=revision-detail] [data-testid=restore-revision]') &&
		`+second+`.querySelector('[data-revision-detail]').textContent.includes('Methods v3.') && `+settled)
	if got := b.eval(`getComputedStyle(` + second + `.querySelector('.revision-head')).backgroundColor`); got == "rgba(0, 0, 0, 0)" {
		t.Errorf("the selected row is not highlighted")
	}
	if n := b.eval(`String(document.querySelectorAll('[data-testid=revision-detail]').length)`); n != "1" {
		t.Fatalf("%s diffs open", n)
	}
	b.do("Enter again closes it", chromedp.KeyEvent(kb.Enter))
	b.waitFor("closed", `!`+second+`.hasAttribute('aria-current') && !document.querySelector('[data-testid=revision-detail]') && `+settled)

	b.eval(`document.querySelectorAll('#revision-list input[name=compare]')[0].click(), ''`)
	if got := b.eval(`String(document.querySelector('[data-testid=compare-revisions]').disabled)`); got != "true" {
		t.Fatal("Compare works with one row ticked")
	}
	b.eval(`document.querySelectorAll('#revision-list input[name=compare]')[3].click(), ''`)
	b.eval(`document.querySelector('[data-testid=compare-revisions]').click(), ''`)
	b.waitFor("v1 → v4", `(document.querySelector('#revision-compare') || {textContent: ''}).textContent.includes('v1 → v4') && `+settled)
	diff := b.eval(`document.querySelector('#revision-compare [data-testid=diff]').textContent`)
	for _, want := range []string{"Intro v4.", "Methods v3.", "Results v2.", "Old results."} {
		if !strings.Contains(diff, want) {
			t.Errorf("the comparison lacks %q: %s", want, diff)
		}
	}
}
