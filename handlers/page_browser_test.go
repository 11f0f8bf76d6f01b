package handlers_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

const settled = `!document.querySelector('.htmx-added, .htmx-settling, .htmx-request')`

// askInPanel sends a message from the page editor's chat panel and waits for a proposal under it
// (the nth proposal panel of the conversation, 1-based).
func askInPanel(b browser, query string, n int) {
	b.t.Helper()
	b.waitFor("the composer is ready", settled+` && !document.querySelector('#send').disabled`)
	b.do("type "+query,
		chromedp.SetValue(chromedp.CSS(`#query`), query),
		chromedp.Click(chromedp.CSS(`#send`)),
	)
	b.waitFor("a proposal panel", `document.querySelectorAll('[data-testid=proposal]').length >= `+itoaTest(n)+` && `+settled)
}

func itoaTest(n int) string { return strconv.Itoa(n) }

const lastProposal = `Array.from(document.querySelectorAll('[data-testid=proposal]')).pop()`

// The browser test: ask the offline assistant to rename a section, see the diff, Accept:
// the editor shows the new text and the revisions list an agent revision; Undo; a rejected
// proposal stays rejected after a reload; a proposal made stale by typing in its section shows
// stale and cannot be accepted.
func TestBrowserPageAssistantProposalsAcceptUndoRejectStale(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	createPageInBrowser(b, app, "Report", methodsPage)
	if got := b.eval(`document.querySelector('#page-content').value`); got != methodsPage {
		t.Fatalf("editor shows %q", got)
	}

	askInPanel(b, "rename section Methods to Approach", 1)
	if diff := b.eval(lastProposal + `.innerText`); !strings.Contains(diff, "## Approach") || !strings.Contains(diff, "## Methods") {
		t.Fatalf("the diff does not show the rename: %q", diff)
	}
	handlerstest.Screenshot(t, b.ctx, "proposal")
	b.eval(lastProposal + `.querySelector('[data-testid=accept]').click(), ''`)
	b.waitFor("the editor shows the new text", `document.querySelector('#page-content').value.includes('## Approach') && `+settled)
	b.waitFor("the panel offers Undo", `!!document.querySelector('[data-testid=undo]')`)

	b.do("open the revisions", chromedp.Click(chromedp.CSS(`#revisions-toggle`)))
	b.waitFor("an agent revision", `!!document.querySelector('#revision-list [data-edit-source=agent]') && `+settled)
	handlerstest.Screenshot(t, b.ctx, "revisions")
	b.do("back to the chat", chromedp.Click(chromedp.CSS(`#chat-toggle`)))
	b.waitFor("undo visible", `document.querySelector('[data-testid=undo]').offsetParent !== null`)
	b.do("undo", chromedp.Click(chromedp.CSS(`[data-testid=undo]`)))
	b.waitFor("the editor shows the old text", `document.querySelector('#page-content').value.includes('## Methods') && `+settled)
	if got := b.eval(`document.querySelector('#page-content').value`); got != methodsPage {
		t.Fatalf("after undo the editor shows %q", got)
	}

	askInPanel(b, "append Done. to section Results", 2)
	b.eval(lastProposal + `.querySelector('[data-testid=reject]').click(), ''`)
	b.waitFor("rejected", lastProposal+`.dataset.status === 'rejected'`)
	b.do("reload", chromedp.Reload())
	// One script waits for the reloaded list and reads the rejected proposal's status, so a
	// re-render of the list between two steps cannot hide the node.
	b.waitFor("the proposals load again, the last one rejected", `document.querySelectorAll('[data-testid=proposal]').length >= 2 && `+settled+` && `+lastProposal+`.dataset.status === 'rejected'`)

	askInPanel(b, "replace section Results with Nothing yet.", 3)
	b.waitFor("fresh", lastProposal+`.dataset.stale === 'false' && !`+lastProposal+`.querySelector('[data-testid=accept]').disabled`)
	b.eval(`(function(){ var ta = document.querySelector('#page-content');
		ta.value = ta.value.replace('Old results.', 'Old results, typed over.');
		ta.dispatchEvent(new Event('input', {bubbles: true})); return ''; })()`)
	b.waitFor("stale after typing in the section", lastProposal+`.dataset.stale === 'true' && `+settled)
	// Read in one script: the card's Accept and its reason, from the same node.
	got := b.eval(`(function(){ var p = ` + lastProposal + `;
		return String(p.querySelector('[data-testid=accept]').disabled) + '|' + p.querySelector('[data-testid=stale-reason]').innerText; })()`)
	if dis, reason, _ := strings.Cut(got, "|"); dis != "true" {
		t.Fatal("a stale proposal can be accepted")
	} else if !strings.Contains(reason, "edited since") {
		t.Fatalf("stale reason = %q", reason)
	}
	handlerstest.Screenshot(t, b.ctx, "stale")
}
