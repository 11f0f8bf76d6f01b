package handlers_test

import (
	"strings"
	"testing"

	"parley/handlers/handlerstest"
)

// A rewrite's tool call shows the opening of its arguments; Show all loads the whole document
// in place.
func TestBrowserLongToolArgumentsLoadOnShowAll(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	content := bigSectionedPage(8000)
	createPageInBrowser(b, app, "Handbook", content)
	askInPanel(b, "add a table of contents", 1)
	const call = `document.querySelector('#chat-pane [data-role=function_call]')`
	b.waitFor("the tool call offers the rest", `!!`+call+` && !!`+call+`.querySelector('[data-testid=tool-arguments-more]')`)
	if got := b.eval(call + `.textContent`); strings.Contains(got, "Paragraph 5 of chapter 15 says") {
		t.Fatal("the whole arguments are on the page before Show all")
	}
	b.eval(`(function(){ var c = ` + call + `; c.querySelector('details').open = true; c.querySelector('[data-testid=tool-arguments-more]').click(); return ''; })()`)
	b.waitFor("the whole arguments", `!!`+call+`.querySelector('[data-testid=tool-arguments]') && `+call+`.querySelector('[data-testid=tool-arguments]').textContent.includes('Paragraph 5 of chapter 15 says') && `+settled)
}
