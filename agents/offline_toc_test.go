package agents

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"parley/markdown"
)

// Every link of the offline assistant's table of contents leads to one heading of the page as
// shown, duplicates included.
func TestTableOfContentsLinksLeadToHeadings(t *testing.T) {
	for _, page := range []string{
		"# Report\n\nIntro.\n\n## Fixes\n\na\n\n### Fixes\n\nb\n\n## Notes & more!\n\nc\n\n## Fixes\n\nd\n",
		"## Alpha\n\na\n\n## Alpha\n\nb\n\n## Alpha 1\n\nc\n",
		"# Report\r\n\r\n## Café\r\n\r\nx\r\n",
	} {
		r := proposeTOC(page, nil)
		if r.call == nil {
			t.Fatalf("no proposal for %q: %s", page, r.text)
		}
		var args ReplaceEntireDocumentArgs
		if err := json.Unmarshal([]byte(r.call.Arguments), &args); err != nil {
			t.Fatal(err)
		}
		html := markdown.RenderPage(args.Content)
		ids := map[string]int{}
		for _, m := range regexp.MustCompile(`<h[1-6] id="([^"]+)"`).FindAllStringSubmatch(html, -1) {
			ids[m[1]]++
		}
		links := regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(html, -1)
		if len(links) != strings.Count(args.Content, "](#") {
			t.Fatalf("%d links rendered of %q", len(links), args.Content)
		}
		seen := map[string]bool{}
		for _, l := range links {
			id, err := url.PathUnescape(l[1]) // a browser matches the decoded fragment
			if err != nil || ids[id] != 1 || seen[id] {
				t.Errorf("link #%s: %d headings have that id (ids %v)\n%s", id, ids[id], ids, args.Content)
			}
			seen[id] = true
		}
	}
}
