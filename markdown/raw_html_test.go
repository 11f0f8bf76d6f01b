package markdown

import (
	"strings"
	"testing"
)

// Raw HTML loses its tags but keeps its text, escaped, in blocks and inline; the content of
// script- and style-like elements goes with them.
func TestRawHTMLKeepsItsTextButNotItsMarkup(t *testing.T) {
	for _, tc := range []struct{ src, text, not string }{
		{`<p style="position:fixed;inset:0">overlay</p>`, "overlay", "position"},
		{"<div class=\"x\">\nblock text\n</div>", "block text", "class"},
		{"a <span style=\"color:red\">inline</span> b", "a inline b", "color"},
		{"<b>bold</b> and <marquee>moving</marquee>", "bold and moving", "<marquee"},
		{"<p>a &lt; b &amp; c</p>", "a < b & c", ""},
		{"<details><summary>Sum</summary>Body</details>", "SumBody", "<details"},
		{"before <script>alert(1)</script> after", "before  after", "alert"},
		{"before <style>body{display:none}</style> after", "before  after", "display"},
		{"<script>\nalert(1)\n</script>\n\nafter", "after", "alert"},
		{"<style>\n.x{}\n</style>", "", ".x"},
		{"<svg><text>svg text</text></svg> tail", "tail", "svg text"},
		{"<template><p>hidden</p></template>", "", "hidden"},
		{"<textarea><img src=x onerror=alert(1)></textarea>", "<img src=x onerror=alert(1)>", "<img"},
		{"<!-- a comment -->", "", "comment"},
		{"inline <script>never closed", "inline", "never"},
	} {
		out := Render(tc.src)
		assertNothingExecutable(t, out)
		doc := parseHTML(t, out)
		got := strings.TrimSpace(doc.Find("body").Text())
		if got != tc.text || tc.not != "" && strings.Contains(out, tc.not) {
			t.Errorf("%q: text %q, want %q: %s", tc.src, got, tc.text, out)
		}
	}
}
