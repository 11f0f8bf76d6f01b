package markdown

import (
	"fmt"
	"testing"
)

// headingsByGoldmark is what Split found before the line scanner: the top-level headings of
// goldmark's own block parse of the whole document.
func headingsByGoldmark(doc string, atDocStart bool) []Section {
	m := maskForParsing(doc, atDocStart)
	heads, _ := goldmarkHeadings(doc, m, 0, len(m))
	return heads
}

func headingsByScanner(doc string, atDocStart bool) []Section {
	return scanHeadings(doc, maskForParsing(doc, atDocStart))
}

// sameHeadings returns "" when the line scanner and goldmark agree on doc's headings, else a
// description of the first difference.
func sameHeadings(doc string, atDocStart bool) string {
	want, got := headingsByGoldmark(doc, atDocStart), headingsByScanner(doc, atDocStart)
	for i := range max(len(want), len(got)) {
		if i >= len(want) || i >= len(got) || want[i] != got[i] {
			show := func(hs []Section) string {
				if i >= len(hs) {
					return "none"
				}
				h := hs[i]
				return fmt.Sprintf("%d:%q setext=%v at %d–%d", h.Level, h.Title, h.Setext, h.Start, h.End)
			}
			return fmt.Sprintf("heading %d (of %d / %d): goldmark %s, scanner %s", i, len(want), len(got), show(want), show(got))
		}
	}
	return ""
}

// FuzzHeadingScanMatchesGoldmark is the differential test of the line scanner: on any text,
// at the document's start or in the middle of one, it finds the same top-level headings
// (level, style, title, lines) as goldmark's block parser. Under plain `go test` it runs the
// seeds: the cases below, every document under testdata/ and the large benchmark page.
func FuzzHeadingScanMatchesGoldmark(f *testing.F) {
	for _, seed := range headingSeeds {
		f.Add(seed)
	}
	for _, doc := range readTestPages(f) {
		f.Add(doc)
	}
	f.Add(largePage())
	f.Fuzz(func(t *testing.T, doc string) {
		for _, atDocStart := range []bool{true, false} {
			if diff := sameHeadings(doc, atDocStart); diff != "" {
				t.Fatalf("atDocStart=%v: %s\n%q", atDocStart, diff, doc)
			}
		}
	})
}

var headingSeeds = []string{
	"", "\n", "# A", "# A\n", "#\n", "#", "## ##\n", "#\tx\n", "#x\n", "####### 7\n",
	"   # three\n", "    # four\n", " \t# tab\n", "\t# tab\n",
	"A\n=\n", "A\n-\n", "A\n  ===  \n", "A\n    ===\n", "A\nB\n---\n", "A\n= =\n", "A\n- - -\n",
	"A\n***\n", "A\n___\n", "---\n", "***\n", "- - -\n", "* * *\n",
	"```\n# x\n```\n# y\n", "~~~\n# x\n~~~~\n# y\n", "````\n```\n# x\n````\n# y\n",
	"```a`b\n# x\n", "``\n# x\n", "```\n# x\n", " ```\n   ```\n# y\n", "```\n    ```\n# y\n",
	"```\n```  \t\n# y\n", "A\n```\n# x\n```\n",
	"    code\n# A\n", "    code\n\n    more\nA\n-\n", "A\n    not code\n===\n",
	"- a\n# b\n", "- a\n  # b\n", "- a\n b\n---\n", "- a\n\n b\n---\n", "- a\n\nb\n---\n",
	"1. a\n2. b\n\nc\n===\n", "- a\n+ b\n\n# c\n", "-\n\n  ```\n\nfoo\n# x\n",
	"- ```\n  x\nfoo\n---\n", "1. a\n\n  ```\n# x\n```\n# y\n", "- a\n```\n# x\n```\n\nb\n",
	"-   a\n    b\n\n    c\n\nd\n-\n", "- a\n      code\n# b\n", "- a\n  - b\n  # c\n# d\n",
	"A\n- b\n", "A\n1. b\n", "A\n2. b\n===\n", "A\n-\n", "A\n*\n===\n", "- a\n---\n", "-  ---\n",
	"> # q\n# r\n", "> a\nb\n---\n", "> a\n\nb\n---\n", "A\n> b\n",
	"<div>\n# x\n</div>\n", "<div>\n\n# x\n", "<!--\n\nfoo\n# x\n-->\n# y\n", "<!-- c -->\n# x\n",
	"<script>\n# x\n</script>\n# y\n", "<a href=\"x\">\n# y\n", "A\n<a href=\"x\">\n===\n",
	"<pre>\n\n# x\n</pre>\n\nfoo\n\n# y\n", "- <div>\n\n# x\n",
	"[a]: /u\n===\n", "[a]: /u\nb\n===\n", "  [a]: /u\n---\n", "a | b\n--- | ---\n", "a\n-:\n-\n",
	"a | b\n- | -\nc\n===\n", "a\n--\nb\n===\n",
	"---\nt: x\n---\n# A\n", "\ufeff# A\n", "\ufeffA\n===\n", "# A\r\nB\r\n-\r\n", "A\rB\r===\r",
	"Para\n\n- item one\n- item two\n\n```sh\n# c\n```\n\nPara\n\n## Next\n",
}
