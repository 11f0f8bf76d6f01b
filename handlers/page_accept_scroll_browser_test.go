package handlers_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"parley/handlers/handlerstest"
)

// partsPage is a page of 40 short sections, far longer than the editor is high; no line wraps.
func partsPage() string {
	var b strings.Builder
	b.WriteString("# Long\n\n")
	for i := range 40 {
		fmt.Fprintf(&b, "## Part %d\n\nText %d.\n\n", i, i)
	}
	return b.String()
}

// After Accept the editor scrolls to the change, far below where the writer was, and marks its
// lines; the cursor, placed after the change, stays on the same text instead of jumping to the end.
func TestBrowserAcceptScrollsTheChangeIntoViewAndKeepsTheCursor(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	page := partsPage()
	createPageInBrowser(b, app, "Long", page)
	askInPanel(b, "replace section Part 25 with Changed text 25,\nover two lines.", 1)
	cursor := strings.Index(page, "Text 35.")
	b.eval(fmt.Sprintf(`(function(){ var ta = document.querySelector('#page-content');
		ta.setSelectionRange(%d, %d); ta.scrollTop = 0; return ''; })()`, cursor, cursor))
	b.eval(lastProposal + `.querySelector('[data-testid=accept]').click(), ''`)
	b.waitFor("the change is marked", `document.querySelector('#page-content').value.includes('Changed text 25,') && !!document.querySelector('[data-testid=change-mark]')`)
	var got struct {
		Value                          string
		ScrollTop, MarkTop, MarkBottom float64
		ViewTop, ViewBottom            float64
		LineHeight, PaddingTop         float64
		Cursor                         int
	}
	out := b.eval(`(function(){ var ta = document.querySelector('#page-content'), m = document.querySelector('[data-testid=change-mark]');
		var t = ta.getBoundingClientRect(), r = m.getBoundingClientRect(), cs = getComputedStyle(ta);
		return JSON.stringify({value: ta.value, scrollTop: ta.scrollTop, markTop: r.top, markBottom: r.bottom,
			viewTop: t.top, viewBottom: t.top + ta.clientHeight, lineHeight: parseFloat(cs.lineHeight),
			paddingTop: parseFloat(cs.paddingTop), cursor: ta.selectionStart}); })()`)
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if want := strings.Index(got.Value, "Text 35."); got.Cursor != want {
		t.Errorf("the cursor is at %d, want %d (still before \"Text 35.\"; the text is %d long)", got.Cursor, want, len(got.Value))
	}
	if got.ScrollTop == 0 || got.MarkTop < got.ViewTop || got.MarkBottom > got.ViewBottom {
		t.Fatalf("the change is not in view: scrollTop %v, mark %v–%v, textarea %v–%v", got.ScrollTop, got.MarkTop, got.MarkBottom, got.ViewTop, got.ViewBottom)
	}
	// The mark covers the changed lines: where they are, counted in lines of the new text.
	first := strings.Count(got.Value[:strings.Index(got.Value, "Changed text 25,")], "\n")
	wantTop := got.ViewTop + got.PaddingTop + float64(first)*got.LineHeight - got.ScrollTop
	if math.Abs(got.MarkTop-wantTop) > 3 || math.Abs(got.MarkBottom-got.MarkTop-2*got.LineHeight) > 3 {
		t.Errorf("the mark is at %v–%v, want the two lines from %v (line height %v)", got.MarkTop, got.MarkBottom, wantTop, got.LineHeight)
	}
	handlerstest.Screenshot(t, b.ctx, "accept-marked")
}
