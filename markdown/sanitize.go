package markdown

import (
	"regexp"
	"sort"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/microcosm-cc/bluemonday"
)

// policy is the one allow-list every rendered message and page goes
// through (a bluemonday.Policy is safe for concurrent use once built).
//
// It is written out element by element rather than starting from
// bluemonday.UGCPolicy: UGCPolicy allows `id` on every element (through
// AllowStandardAttributes), which could collide with the app's own ids and
// htmx targets, and it allows many tags goldmark never emits. What is kept
// is exactly what the goldmark GFM renderer and chroma produce, with UGC's
// URL rules: http, https, mailto and relative URLs only, parseable, links
// rel="nofollow noopener", absolute links target="_blank".
var policy = newPolicy()

func newPolicy() *bluemonday.Policy {
	p := bluemonday.NewPolicy()

	p.AllowStandardURLs() // http, https, mailto, relative; must parse
	p.RequireNoFollowOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true) // also adds rel noopener

	p.AllowElements(
		"p", "br", "hr", "blockquote",
		"h1", "h2", "h3", "h4", "h5", "h6",
		"ul", "ol", "li",
		"em", "strong", "del", "code", "pre",
		"table", "thead", "tbody", "tr", "th", "td",
		"span", "div",
	)
	// Page headings' ids (RenderPage): always prefixed, never an id the app uses.
	p.AllowAttrs("id").Matching(regexp.MustCompile(`^h-[\p{L}\p{M}\p{N}_-]{0,300}$`)).OnElements("h1", "h2", "h3", "h4", "h5", "h6")
	p.AllowAttrs("start").Matching(bluemonday.Integer).OnElements("ol")
	p.AllowAttrs("align").Matching(regexp.MustCompile(`^(left|center|right)$`)).OnElements("th", "td")

	p.AllowAttrs("href").OnElements("a")
	p.AllowAttrs("title").OnElements("a", "img")
	p.AllowAttrs("rel").Matching(regexp.MustCompile(`^nofollow noopener$`)).OnElements("a")
	p.AllowAttrs("target").Matching(regexp.MustCompile(`^_blank$`)).OnElements("a")
	p.AllowAttrs("src", "alt").OnElements("img")

	// GFM task list items: goldmark writes
	// <input checked="" disabled="" type="checkbox">.
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").Matching(regexp.MustCompile(`^(|checked|disabled)$`)).OnElements("input")

	// Classes: only chroma's token classes and our code-block wrapper, so
	// nothing in a message can borrow the app's (Tailwind) classes.
	p.AllowAttrs("class").Matching(chromaClasses).OnElements("span", "pre", "table", "td")
	p.AllowAttrs("class").Matching(wrapperClasses).OnElements("div")
	p.AllowAttrs("class").Matching(codeLanguageClass).OnElements("code")
	p.AllowAttrs("tabindex").Matching(regexp.MustCompile(`^0$`)).OnElements("pre")
	return p
}

// chromaClasses matches a class attribute made of chroma's standard token
// classes ("k", "nf", "line", "cl", "chroma" …), space separated. The list
// comes from chroma.StandardTypes so it follows chroma upgrades.
var chromaClasses = func() *regexp.Regexp {
	var names []string
	for _, c := range chroma.StandardTypes {
		if c != "" && c != "bg" {
			names = append(names, regexp.QuoteMeta(c))
		}
	}
	// Longest first so the alternation never stops at a prefix.
	sort.Slice(names, func(i, j int) bool {
		if len(names[i]) != len(names[j]) {
			return len(names[i]) > len(names[j])
		}
		return names[i] < names[j]
	})
	alt := strings.Join(names, "|")
	return regexp.MustCompile(`^(?:` + alt + `)(?: (?:` + alt + `))*$`)
}()

// wrapperClasses matches the classes wrapCodeBlock writes on its div, and
// chroma's own div wrapper (line-number tables).
var wrapperClasses = regexp.MustCompile(`^(?:code-block(?: language-[A-Za-z0-9_+#.-]{1,32})?|chroma)$`)

// codeLanguageClass matches goldmark's class on unhighlighted code.
var codeLanguageClass = regexp.MustCompile(`^language-[A-Za-z0-9_+#.-]{1,32}$`)
