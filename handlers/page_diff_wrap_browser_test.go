package handlers_test

import (
	"strings"
	"testing"

	"parley/handlers/handlerstest"
)

// Diff lines wrap at word boundaries (a long word may still break), never mid-word as
// word-break: break-all did ("understa|nd").
func TestBrowserDiffLinesWrapAtWordBoundaries(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	createPageInBrowser(b, app, "Wrap", methodsPage)
	askInPanel(b, "replace section Results with "+strings.Repeat("writers need to understand what changed ", 8), 1)
	got := b.eval(`(function(){ var ls = document.querySelectorAll('[data-testid=proposal] .diff-line');
		if (!ls.length) return 'no diff lines';
		for (var i = 0; i < ls.length; i++) { var s = getComputedStyle(ls[i]);
			if (s.wordBreak === 'break-all' || s.overflowWrap !== 'break-word') return s.wordBreak + ' / ' + s.overflowWrap; }
		return 'ok'; })()`)
	if got != "ok" {
		t.Fatalf("diff lines wrap with %s", got)
	}
}
