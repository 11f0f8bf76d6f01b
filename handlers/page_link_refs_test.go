package handlers_test

import (
	"fmt"
	"strings"
	"testing"
)

// Removing a changelog's last section, where its link definitions sit, warns in the proposal card
// before Accept that the headings above still use them; a patch that keeps them does not.
func TestProposalCardWarnsOfRemovedLinkDefinitions(t *testing.T) {
	app, c := signedIn(t)
	page := "# Changelog\n\n## [1.7.0]\n\n- New.\n\n## [1.6.0]\n\n- Old.\n\n[1.7.0]: https://example.com/1.7.0\n[1.6.0]: https://example.com/1.6.0\n"
	id := newPage(t, c, "Changelog", page)
	_, answer := askPage(t, app, c, id, "remove section [1.6.0]")
	panel := c.Get(fmt.Sprintf("/pages/%d/proposals/%d", id, proposalOf(t, answer)))
	if !strings.Contains(panel.Body, `data-testid="proposal-warning"`) || !strings.Contains(panel.Body, "the link definition [1.7.0], which the page still uses") {
		t.Fatalf("no warning in the card: %s", panel.Body)
	}
	_, answer = askPage(t, app, c, id, "replace section [1.7.0] with - Newer.")
	if panel := c.Get(fmt.Sprintf("/pages/%d/proposals/%d", id, proposalOf(t, answer))); strings.Contains(panel.Body, `data-testid="proposal-warning"`) {
		t.Fatalf("a patch that keeps the definitions warns: %s", panel.Body)
	}
}
