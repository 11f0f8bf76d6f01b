package handlers_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// wordMarksJS reports, as JSON, the proposal's word marks (ins and del texts), whether any diff
// overflows its box sideways, and every mark or changed line below 4.5:1 contrast (WCAG AA) on the
// background it is drawn on. Colours are read through a canvas, so any CSS colour syntax works.
const wordMarksJS = `(() => {
  const p = Array.from(document.querySelectorAll('[data-testid=proposal]')).pop();
  const ctx = document.createElement('canvas').getContext('2d', {willReadFrequently: true});
  const rgba = c => { ctx.clearRect(0, 0, 1, 1); ctx.fillStyle = '#000'; ctx.fillStyle = c; ctx.fillRect(0, 0, 1, 1); return Array.from(ctx.getImageData(0, 0, 1, 1).data); };
  const bgOf = el => { for (; el; el = el.parentElement) { const c = getComputedStyle(el).backgroundColor; if (rgba(c)[3] > 0 && !/rgba\(0, 0, 0, 0\)|transparent/.test(c)) return rgba(c); } return [255, 255, 255, 255]; };
  const lum = c => { const [r, g, b] = c.slice(0, 3).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const bad = [];
  p.querySelectorAll('.diff-word, .diff-line[data-kind=insert], .diff-line[data-kind=delete]').forEach(el => {
    const [hi, lo] = [lum(rgba(getComputedStyle(el).color)), lum(bgOf(el))].sort((x, y) => y - x);
    const ratio = (hi + 0.05) / (lo + 0.05);
    if (ratio < 4.5) bad.push(el.tagName + ' ' + JSON.stringify(el.textContent) + ' ' + ratio.toFixed(2));
  });
  const overflow = Array.from(p.querySelectorAll('[data-testid=diff]')).some(d => d.scrollWidth > d.clientWidth + 1);
  return JSON.stringify({
    ins: Array.from(p.querySelectorAll('ins.diff-word')).map(e => e.textContent),
    del: Array.from(p.querySelectorAll('del.diff-word')).map(e => e.textContent),
    overflow, bad});
})()`

// A changed line's changed words are marked inside it (ins / del), the diff wraps within a
// 390 px phone screen, and marks and lines keep AA contrast in the light and the dark scheme.
func TestBrowserDiffMarksChangedWordsReadablyOnAPhone(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	createPageInBrowser(b, app, "Report", methodsPage)
	askInPanel(b, "replace section Results with Old results, now checked twice by the whole team.", 1)
	b.do("a phone", chromedp.EmulateViewport(390, 844))
	b.waitFor("the chat panel on screen", `document.querySelector('#chat-toggle')`)
	b.eval(`(function(){ if (!document.querySelector('#side-panel').hasAttribute('data-mobile-open')) document.querySelector('#chat-toggle').click(); return ''; })()`)
	b.waitFor("the proposal visible", lastProposal+`.offsetParent !== null`)
	for _, scheme := range []string{"light", "dark"} {
		b.do("prefers-color-scheme: "+scheme, colorScheme(scheme))
		var got struct {
			Ins, Del []string
			Overflow bool
			Bad      []string
		}
		if err := json.Unmarshal([]byte(b.eval(wordMarksJS)), &got); err != nil {
			t.Fatal(err)
		}
		if strings.Join(got.Ins, "|") != ", now checked twice by the whole team" || len(got.Del) != 0 {
			t.Errorf("%s: marked words: inserted %q, deleted %q", scheme, got.Ins, got.Del)
		}
		if got.Overflow {
			t.Errorf("%s: a diff overflows its box at 390 px", scheme)
		}
		if len(got.Bad) > 0 {
			t.Errorf("%s: below 4.5:1:\n%s", scheme, strings.Join(got.Bad, "\n"))
		}
		handlerstest.Screenshot(t, b.ctx, "word-diff-"+scheme)
	}
}
