package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// axeSource is axe-core from npm (package.json), installed by make under node_modules.
func axeSource(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is not installed (run the tests through make test): %v", err)
	}
	return string(src)
}

// axeJS runs axe on the page and returns its serious and critical violations as JSON lines.
const axeJS = `axe.run(document, {resultTypes: ['violations']}).then(r => JSON.stringify(
  r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => v.impact + ' ' + v.id + ' (' + v.help + '): ' + v.nodes.slice(0, 4).map(n => n.target.join(' ') + (n.failureSummary ? ' [' + n.failureSummary.replace(/\s+/g, ' ').slice(0, 160) + ']' : '')).join(' | '))))`

// axeCheck injects axe-core into the page and fails the test for every serious or critical
// violation, naming the state.
func (b browser) axeCheck(state, axe string) int {
	b.t.Helper()
	b.waitFor("settled before axe", settled)
	b.eval(`(() => { if (!window.axe) { (0, eval)(` + jsString(axe) + `); } return ''; })()`)
	var found []string
	if err := json.Unmarshal([]byte(b.evalAwait(axeJS)), &found); err != nil {
		b.t.Fatalf("axe on %s: %v", state, err)
	}
	for _, f := range found {
		b.t.Errorf("axe, %s: %s", state, f)
	}
	return len(found)
}

// Every main page and state has no serious or critical accessibility violation by axe-core:
// chat empty, streaming and finished, the sidebar's search results, trash, share, agents, teams,
// a guest's chat, the password prompt, the embed, the pages list, the editor with its chat and a
// proposal, and revisions.
func TestAxeFindsNoSeriousViolationsOnTheMainPages(t *testing.T) {
	axe := axeSource(t)
	words := make([]string, 30)
	for i := range words {
		words[i] = fmt.Sprintf("word%d ", i)
	}
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: append(words, "\n\n```go\nfmt.Println(\"hi\")\n```\n"), Gap: 60 * time.Millisecond}
	})
	app := handlerstest.Start(t, handlerstest.WithUpstream(up))
	b := signInBrowser(t, app)
	c := app.Client(t)
	c.SignIn("ada@example.com", "correct horse")
	owl := createAgent(t, c, agentForm("owl", "name", "Public Owl"))
	createAgent(t, c, agentForm("vault", "name", "Vault", "password", "open sesame"))
	team := createTeam(t, c, "Helpers", "private", owl)
	page := newPage(t, c, "Field notes", "# Field notes\n\n## Tides\n\nLow tide at six.\n")
	old, _ := seedConversation(t, app, "ada@example.com", "Weather talk", time.Now().Add(-time.Hour), "what about the weather", "It is sunny.")
	gone, _ := seedConversation(t, app, "ada@example.com", "Deleted talk", time.Now().Add(-2*time.Hour), "q", "a")
	htmxPost(c, fmt.Sprintf("/sessions/%d/delete", gone), url.Values{})
	c.PostForm(fmt.Sprintf("/sessions/%d/share", old), url.Values{})
	share, _ := doc(t, c.Get(fmt.Sprintf("/sessions/%d/share", old)).Body).Find("[data-testid=share-url]").Attr("value")

	total := 0
	visit := func(state, path, ready string) {
		b.do(state, chromedp.Navigate(app.URL+path), chromedp.WaitVisible(chromedp.CSS(ready)))
		total += b.axeCheck(state, axe)
	}
	visit("chat, empty", "/chat/new", "#query")
	b.do("send", chromedp.SendKeys(chromedp.CSS(`#query`), "tell me things\n"))
	b.waitFor("streaming", `(`+answerText+`).includes('word3')`)
	total += b.axeCheck("chat, streaming", axe)
	b.waitFor("finished", `document.querySelector('[data-role=assistant][data-status=complete] .code-bar')`)
	total += b.axeCheck("chat, finished", axe)
	b.do("search", chromedp.SendKeys(chromedp.CSS(`#history-search`), "weather"))
	b.waitFor("a hit", `document.querySelector('[data-testid=search-hit]')`)
	total += b.axeCheck("sidebar search results", axe)
	visit("trash", "/history/trash", "main")
	if i := strings.Index(share, "/share/"); i >= 0 {
		share = share[i:]
	}
	visit("share page", share, "main")
	visit("agents", "/agents", "main")
	visit("teams", "/teams", "main")
	visit("team chat", fmt.Sprintf("/teams/%d/chat", team), "#query")
	visit("pages list", "/pages", "main")
	save(c, page, 1, "Field notes", "# Field notes\n\n## Tides\n\nLow tide at seven.\n")
	visit("revisions", fmt.Sprintf("/pages/%d/revisions", page), "main")
	b.eval(`document.querySelector('#revision-list [data-revision-row]').click(), ''`)
	b.waitFor("a revision's diff under its row", `!!document.querySelector('#revision-list li[aria-current=true] [data-testid=revision-detail]') && `+settled)
	total += b.axeCheck("revisions, one open", axe)
	visit("editor", fmt.Sprintf("/pages/%d/edit", page), "#page-content")
	total += b.axeCheck("editor with chat", axe) // (already counted above; now with the chat open)

	// Proposals come from the offline assistant: a second app without the fake model.
	offline := handlerstest.Start(t)
	ob := signInBrowser(t, offline)
	oc := offline.Client(t)
	oc.SignIn("ada@example.com", "correct horse")
	p2 := newPage(t, oc, "Field notes", "# Field notes\n\n## Tides\n\nLow tide at six.\n")
	ob.do("editor", chromedp.Navigate(fmt.Sprintf("%s/pages/%d/edit", offline.URL, p2)), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	ob.do("ask for an edit", chromedp.SendKeys(chromedp.CSS(`#query`), "rename section Tides to Tide times\n"))
	ob.waitFor("a proposal", `document.querySelector('[data-testid=proposal] button')`)
	total += ob.axeCheck("editor with chat and a proposal", axe)

	guest := browser{t: t, ctx: handlerstest.Browser(t)}
	guest.do("guest chat", chromedp.Navigate(app.URL+"/chat/owl"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	total += guest.axeCheck("guest chat", axe)
	guest.do("password prompt", chromedp.Navigate(app.URL+"/chat/vault"), chromedp.WaitVisible(chromedp.CSS(`input[type=password]`)))
	total += guest.axeCheck("password prompt", axe)
	guest.do("embed", chromedp.Navigate(app.URL+"/embed/agent/owl"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	total += guest.axeCheck("embed", axe)
	t.Logf("axe: %d serious or critical violations in all states", total)
}

// tabTo presses Tab until the focus is on an element matching selector (at most 200 times).
func (b browser) tabTo(selector string) {
	b.t.Helper()
	for range 200 {
		if b.eval(`String(!!document.activeElement?.matches(`+jsString(selector)+`))`) == "true" {
			return
		}
		b.do("Tab", chromedp.KeyEvent("\t"))
	}
	b.t.Fatalf("Tab never reached %s (focus is on %s)", selector, b.eval(`document.activeElement?.outerHTML.slice(0, 120) ?? 'nothing'`))
}

// With the keyboard alone a person sends a message, rates the answer, opens a past conversation
// from the sidebar, and accepts an edit the page assistant proposes.
func TestKeyboardOnlySendRateOpenAndAccept(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	c := app.Client(t)
	c.SignIn("ada@example.com", "correct horse")
	past, _ := seedConversation(t, app, "ada@example.com", "Past talk", time.Now().Add(-time.Hour), "q", "a")
	page := newPage(t, c, "Field notes", "# Field notes\n\n## Tides\n\nLow tide at six.\n")

	b.do("open chat", chromedp.Navigate(app.URL+"/chat/new"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.waitFor("settled", settled)
	b.tabTo("#query")
	b.do("type and press Enter", chromedp.KeyEvent("hello there"), chromedp.KeyEvent("\r"))
	b.waitFor("the answer", `document.querySelector('[data-role=assistant][data-status=complete] [data-testid=feedback-up]')`)
	b.waitFor("settled", settled)
	b.tabTo(`[data-role=assistant] [data-testid=feedback-up]`)
	b.do("rate it", chromedp.KeyEvent("\r"))
	b.waitFor("the rating", `document.querySelector('[data-role=assistant] [data-testid=feedback]')?.dataset.rating === 'up'`)

	b.tabTo(fmt.Sprintf(`#history-%d a`, past))
	b.do("open the past conversation", chromedp.KeyEvent("\r"))
	b.waitFor("the past conversation", fmt.Sprintf(`location.pathname === '/sessions/%d/chat'`, past))

	b.do("open the editor", chromedp.Navigate(fmt.Sprintf("%s/pages/%d/edit", app.URL, page)), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.waitFor("settled", settled)
	b.tabTo("#query")
	b.do("ask for an edit", chromedp.KeyEvent("rename section Tides to Tide times"), chromedp.KeyEvent("\r"))
	b.waitFor("a proposal", `document.querySelector('[data-testid=proposal] [data-testid=accept]:not([disabled])')`)
	b.waitFor("settled", settled)
	b.tabTo(`[data-testid=proposal] [data-testid=accept]`)
	b.do("accept it", chromedp.KeyEvent("\r"))
	b.waitFor("the accepted edit", `document.getElementById('page-content').value.includes('## Tide times')`)
}
