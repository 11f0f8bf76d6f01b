package agents

import (
	"strings"
	"testing"
)

// The offline agent's token counts are words as strings.Fields splits them, whatever the spacing.
func TestOfflineUsageCountsWordsAsFieldsDoes(t *testing.T) {
	for _, s := range []string{"", " ", "one", " two  words ", "tabs\tand\nlines\r\n", "non\u00a0breaking space", "émoji 🌱 garden", "\u2003wide\u3000space"} {
		if got, want := wordCount(s), len(strings.Fields(s)); got != want {
			t.Errorf("wordCount(%q) = %d, want %d", s, got, want)
		}
	}
}
