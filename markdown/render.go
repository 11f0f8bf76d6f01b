package markdown

import (
	"bytes"
	"crypto/sha256"
	"net/url"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// chromaStyle and chromaDarkStyle name the chroma styles behind the
// classes Render emits; ChromaCSS writes the matching stylesheet.
const (
	chromaStyle     = "github"
	chromaDarkStyle = "github-dark"
)

// md is the configured goldmark instance for messages. goldmark is safe for
// concurrent use once built. Raw HTML is never passed through as markup:
// raw_html.go keeps its text and drops its tags (and script-like contents);
// images follow the image policy in images.go. Headings in messages get no id (no
// WithAutoHeadingID) so nothing in a message can collide with an id the app
// uses; pages (mdPage) get prefixed ids.
var md = newMarkdown()

// mdPage is md with heading ids ("h-" + slug, see heading_ids.go) so a page's
// table of contents links work.
var mdPage = newMarkdown(parser.WithAutoHeadingID())

func newMarkdown(options ...parser.Option) goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(
			extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
			extension.Strikethrough,
			extension.Linkify,
			extension.TaskList,
		),
		goldmark.WithParserOptions(append(options,
			parser.WithASTTransformers(util.Prioritized(linkAttributes{}, 100), util.Prioritized(inlineSkipper{}, 100)))...,
		),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(newCodeBlockRenderer(), 100),
				util.Prioritized(imageRenderer{}, 100), util.Prioritized(rawHTMLRenderer{}, 100)),
		),
	)
}

// Render turns markdown (a chat answer, possibly still streaming, or a page)
// into sanitised HTML ready for templ.Raw.
//
// Pipeline: goldmark with GFM (tables, strikethrough, linkify, task lists);
// fenced code highlighted with chroma classes through goldmark-highlighting
// (style "github", see ChromaCSS; code_blocks.go); then the bluemonday
// allow-list in sanitize.go. An unclosed code fence runs to the end of the
// text, as CommonMark says, so partial answers render; it is shown plain
// until its closing fence arrives (highlighting is the costly step, and a
// streamed answer is re-rendered many times).
//
// Shape of the output the views can rely on:
//   - every fenced code block is `<div class="code-block [language-X]">`
//     holding one `<pre>` (`<pre class="chroma">` when highlighted); the view
//     adds its copy button to `.code-block`. Indented code blocks are a bare
//     `<pre><code>`.
//   - every link has rel="nofollow noopener"; links with a host also get
//     target="_blank". Only http, https and mailto URLs (and relative ones)
//     survive; javascript:, data:, vbscript: and the like are removed.
//   - images load only from our origin, a host AllowImageHosts lists, or a
//     raster data: URL (PNG, JPEG, GIF, WebP, AVIF, BMP); another origin's
//     image is `<a class="image-link">alt · host</a>` (a span inside a
//     link), and anything else its alt text alone.
//   - raw HTML keeps its text, escaped, without its tags; the content of
//     script- and style-like elements is dropped.
//   - no id, style, on*, hx-* or data-* attribute appears anywhere (RenderPage
//     adds "h-" ids to headings).
func Render(src string) string {
	var buf bytes.Buffer
	// Convert only fails when the writer fails; a bytes.Buffer does not.
	_ = md.Convert([]byte(src), &buf)
	return string(policy.Load().SanitizeBytes(buf.Bytes()))
}

// finalCache holds the output of RenderFinal: 1,024 documents or 32 MB.
var finalCache = newHTMLCache(1024, 32<<20)

// RenderFinal is Render for text that no longer changes (a finished message, a saved revision):
// the output is identical, and it is kept by the SHA-256 of src, so showing a conversation again
// does not render its finished answers again. Text still being streamed should use Render, so
// its many prefixes do not crowd the cache.
func RenderFinal(src string) string {
	key := sha256.Sum256([]byte(src))
	if html, ok := finalCache.get(key); ok {
		return string(html)
	}
	html := Render(src)
	finalCache.put(key, []byte(html))
	return html
}

// pageCache holds the output of RenderPage: 256 documents or 32 MB.
var pageCache = newHTMLCache(256, 32<<20)

// RenderPage is RenderFinal for a page: headings also get ids, "h-" and GitHub's slug of their
// text, with "-1", "-2" … on repeats (HeadingIDs gives the same ids from section titles), so a
// table of contents can link to them.
func RenderPage(src string) string {
	key := sha256.Sum256([]byte(src))
	if html, ok := pageCache.get(key); ok {
		return string(html)
	}
	var buf bytes.Buffer
	ctx := parser.NewContext(parser.WithIDs(newHeadingIDs()))
	_ = mdPage.Convert([]byte(src), &buf, parser.WithContext(ctx))
	html := policy.Load().SanitizeBytes(buf.Bytes())
	pageCache.put(key, html)
	return string(html)
}

// linkAttributes marks every link and autolink rel="nofollow noopener",
// and opens links that name a host in a new tab. The sanitiser enforces the
// same rules again; doing it here keeps the attribute order stable.
type linkAttributes struct{}

var (
	attrRel    = []byte("rel")
	attrTarget = []byte("target")
	relValue   = []byte("nofollow noopener")
	blankValue = []byte("_blank")
)

func (linkAttributes) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	source := reader.Source()
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var dest []byte
		switch l := n.(type) {
		case *ast.Link:
			dest = l.Destination
		case *ast.AutoLink:
			dest = l.URL(source)
		default:
			return ast.WalkContinue, nil
		}
		if html.IsDangerousURL(dest) {
			return ast.WalkContinue, nil // goldmark drops the href
		}
		n.SetAttribute(attrRel, relValue)
		if u, err := url.Parse(string(dest)); err == nil && u.Host != "" {
			n.SetAttribute(attrTarget, blankValue)
		}
		return ast.WalkContinue, nil
	})
}
