package handlers_test

import (
	"fmt"
	"strings"
	"testing"

	"parley/handlers/handlerstest"
)

// hunkedPage says "colour" in three paragraphs far enough apart to be three hunks of a rewrite.
func hunkedPage() string {
	var b strings.Builder
	b.WriteString("# Colours\n\n")
	for i := range 30 {
		if i == 0 || i == 14 || i == 29 {
			fmt.Fprintf(&b, "Paragraph %d is about colour.\n\n", i)
		} else {
			fmt.Fprintf(&b, "Paragraph %d.\n\n", i)
		}
	}
	return b.String()
}

// A full replacement is accepted hunk by hunk: untick the middle hunk of three, Apply (2), and the
// page is exactly the diff shown: each ticked hunk's new lines, the unticked one's old lines.
func TestBrowserFullReplacementAppliesTheTickedHunks(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	page := hunkedPage()
	createPageInBrowser(b, app, "Colours", page)
	var id int64
	if err := app.Store.DB.Get(&id, `SELECT id FROM pages ORDER BY id DESC LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	askInPanel(b, `replace "colour" with "color" everywhere`, 1)
	if n := b.eval(`String(` + lastProposal + `.querySelectorAll('[data-testid=row-checkbox]:checked').length)`); n != "3" {
		t.Fatalf("%s hunks ticked, want all 3", n)
	}
	// Untick the middle hunk and read, in the same script, what the diff shows the page will be
	// around each hunk: its context and new lines when ticked, its context and old lines when not.
	shown := b.eval(`(function(){ var p = ` + lastProposal + `;
		p.querySelectorAll('[data-testid=row-checkbox]')[1].click();
		return Array.from(p.querySelectorAll('[data-row]')).map(function (row) {
			var ticked = row.querySelector('[data-testid=row-checkbox]').checked;
			return Array.from(row.querySelectorAll('.diff-line')).filter(function (l) {
				return l.dataset.kind === 'equal' || l.dataset.kind === (ticked ? 'insert' : 'delete');
			}).map(function (l) { return l.textContent.slice(2); }).join('\n');
		}).join('\u0000') + '\u0001' + p.querySelector('[data-testid=accept]').textContent; })()`)
	hunks, button, _ := strings.Cut(shown, "\x01")
	if button != "Apply (2)" {
		t.Fatalf("the button reads %q", button)
	}
	b.eval(lastProposal + `.querySelector('[data-testid=accept]').click(), ''`)
	b.waitFor("accepted", `document.querySelector('#page-content').value.includes('Paragraph 0 is about color.') && `+settled)

	want := strings.Replace(strings.Replace(page, "Paragraph 0 is about colour.", "Paragraph 0 is about color.", 1),
		"Paragraph 29 is about colour.", "Paragraph 29 is about color.", 1)
	if got := storedPage(t, app, id).Content; got != want {
		t.Fatalf("stored page:\n%q\nwant\n%q", got, want)
	}
	if got := b.eval(`document.querySelector('#page-content').value`); got != want {
		t.Fatalf("the editor shows %q", got)
	}
	for k, h := range strings.Split(hunks, "\x00") {
		if !strings.Contains(want, h+"\n") {
			t.Errorf("hunk %d as shown is not in the page:\n%s", k, h)
		}
	}
}
