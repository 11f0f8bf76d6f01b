package markdown

import (
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/alecthomas/chroma/v2"
	"github.com/microcosm-cc/bluemonday"
)

// policy is the one allow-list every rendered message and page goes
// through (a bluemonday.Policy is safe for concurrent use once built;
// AllowImageHosts swaps in one admitting its hosts' images).
//
// It is written out element by element rather than starting from
// bluemonday.UGCPolicy: UGCPolicy allows `id` on every element (through
// AllowStandardAttributes), which could collide with the app's own ids and
// htmx targets, and it allows many tags goldmark never emits. What is kept
// is exactly what the goldmark GFM renderer, chroma and images.go produce,
// with UGC's URL rules: http, https, mailto and relative URLs only,
// parseable, links rel="nofollow noopener", absolute links target="_blank";
// data: URLs only as raster images.
var policy atomic.Pointer[bluemonday.Policy]

func init() { policy.Store(newPolicy(nil)) }

// newPolicy builds the allow-list; imgHosts are the hosts (lower case, maybe with a port) whose
// images may load besides our own origin's and raster data: URLs.
func newPolicy(imgHosts []string) *bluemonday.Policy {
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

	// Links: http(s), mailto or relative, never data: (which AllowImageData admits for img).
	p.AllowAttrs("href").Matching(linkHref).OnElements("a")
	p.AllowAttrs("title").OnElements("a", "img")
	p.AllowAttrs("rel").Matching(regexp.MustCompile(`^nofollow noopener$`)).OnElements("a")
	p.AllowAttrs("target").Matching(regexp.MustCompile(`^_blank$`)).OnElements("a")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^image-link$`)).OnElements("a", "span")
	// Images: images.go decides which may load; the sanitiser admits the same sources again.
	p.AllowAttrs("src").Matching(imageSrc(imgHosts)).OnElements("img")
	p.AllowAttrs("alt").OnElements("img")
	p.AllowURLSchemeWithCustomPolicy("data", func(u *url.URL) bool {
		kind, _ := classifyImage(u.String())
		return kind == imageLoad
	})

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

// linkHref matches an href with an http, https or mailto scheme, or none (a relative URL, whose
// first colon, if any, comes after a '/', '?' or '#').
var linkHref = regexp.MustCompile(`(?i)^(?:(?:https?|mailto):|[^:/?#]*(?:[/?#]|$))`)

// imageSrc matches an img src the image policy loads (see classifyImage): a relative URL on our
// origin, a raster data: URL, or http(s) on one of hosts.
func imageSrc(hosts []string) *regexp.Regexp {
	alt := []string{
		`[^:/?#\\]+(?:[/?#][^\\]*)?$`, // a relative path: no scheme
		`[?#][^\\]*$`,                 // a query or fragment alone
		`/(?:[^/\\][^\\]*)?$`,         // an absolute path, not //host
		`data:image/(?:png|jpeg|gif|webp|avif|bmp)[;,]`,
	}
	for _, h := range hosts {
		alt = append(alt, `https?://`+regexp.QuoteMeta(h)+`(?:[/?#][^\\]*)?$`)
	}
	return regexp.MustCompile(`(?i)^(?:` + strings.Join(alt, "|") + `)`)
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
