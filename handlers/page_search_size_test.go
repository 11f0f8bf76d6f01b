package handlers_test

import (
	"fmt"
	"strings"
	"testing"
)

// A page near the 1 MB content limit made of distinct words (whose full search vector would pass
// PostgreSQL's 1 MB tsvector limit) is created and saved like any other, and its opening words
// are found by the search.
func TestLargePageOfDistinctWordsIsStoredAndSearchable(t *testing.T) {
	app, c := signedIn(t)
	var b strings.Builder
	for i := 0; b.Len() < 990_000; i++ {
		fmt.Fprintf(&b, "zq%08dxword%d ", i*7919, i)
	}
	content := b.String()
	id := newPage(t, c, "Large", content)
	if got := storedPage(t, app, id); got.Content != content {
		t.Fatalf("stored %d bytes, want %d", len(got.Content), len(content))
	}
	var found int
	if err := app.Store.DB.Get(&found, `SELECT count(*) FROM pages WHERE id = $1 AND search @@ to_tsquery('english', 'zq00000000xword0')`, id); err != nil || found != 1 {
		t.Fatalf("the page's first word is not found (%d, %v)", found, err)
	}
}
