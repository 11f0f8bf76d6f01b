package markdown

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Raw HTML in markdown (an answer's `<p style="…">overlay</p>`, a pasted `<div>`) is never passed
// through as markup: its tags are removed and its text is kept, escaped, so nothing a model or a
// person writes is silently lost. The content of script- and style-like elements (script, style,
// template, iframe, object, noscript, textarea …) is dropped with them: it is code, not text.

// textPolicy strips every element and comment, keeps the text (escaped), and skips the content of
// bluemonday's script-like elements (script, style, iframe, object, noscript, title …) plus those
// named in skippedElements.
var textPolicy = func() *bluemonday.Policy {
	p := bluemonday.StrictPolicy()
	p.SkipElementsContent(skippedElements...)
	return p
}()

// skippedElements are the elements whose content raw HTML loses along with their tags.
var skippedElements = []string{"script", "style", "template", "iframe", "object", "embed", "noscript",
	"noembed", "noframes", "frameset", "xmp", "title", "svg", "math"}

// rawHTMLRenderer writes an HTML block as a paragraph of its text (nothing when it has none) and an
// inline tag as nothing; the text between inline tags is ordinary markdown text.
type rawHTMLRenderer struct{}

func (rawHTMLRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, renderHTMLBlockText)
	reg.Register(ast.KindRawHTML, func(util.BufWriter, []byte, ast.Node, bool) (ast.WalkStatus, error) {
		return ast.WalkSkipChildren, nil
	})
}

func renderHTMLBlockText(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.HTMLBlock)
	var raw bytes.Buffer
	for i := range n.Lines().Len() {
		line := n.Lines().At(i)
		raw.Write(line.Value(source))
	}
	if n.HasClosure() {
		raw.Write(n.ClosureLine.Value(source))
	}
	if t := strings.TrimSpace(textPolicy.Sanitize(raw.String())); t != "" {
		_, _ = w.WriteString("<p>" + t + "</p>\n")
	}
	return ast.WalkSkipChildren, nil
}

// openTag matches an inline raw HTML start tag and captures its lower-cased name; closeTag an end tag.
var (
	openTag  = regexp.MustCompile(`^<([A-Za-z][A-Za-z0-9-]*)`)
	closeTag = regexp.MustCompile(`^</([A-Za-z][A-Za-z0-9-]*)`)
)

// inlineSkipper removes what sits between an inline start tag of a skipped element
// (skippedElements) and its end tag (to the end of the paragraph when none comes), so an inline
// `<script>…</script>` loses its content as a block one does.
type inlineSkipper struct{}

func (inlineSkipper) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	source := reader.Source()
	skipped := map[string]bool{}
	for _, e := range skippedElements {
		skipped[e] = true
	}
	var raws []*ast.RawHTML
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if r, ok := n.(*ast.RawHTML); ok && entering {
			raws = append(raws, r)
		}
		return ast.WalkContinue, nil
	})
	for _, r := range raws {
		if r.Parent() == nil {
			continue // already removed
		}
		m := openTag.FindSubmatch(rawValue(r, source))
		if m == nil || !skipped[strings.ToLower(string(m[1]))] {
			continue
		}
		name := strings.ToLower(string(m[1]))
		parent := r.Parent()
		for next := r.NextSibling(); next != nil; {
			after := next.NextSibling()
			end := false
			if nr, ok := next.(*ast.RawHTML); ok {
				if c := closeTag.FindSubmatch(rawValue(nr, source)); c != nil && strings.ToLower(string(c[1])) == name {
					end = true
				}
			}
			parent.RemoveChild(parent, next)
			if end {
				break
			}
			next = after
		}
	}
}

func rawValue(r *ast.RawHTML, source []byte) []byte {
	var b []byte
	for i := range r.Segments.Len() {
		s := r.Segments.At(i)
		b = append(b, s.Value(source)...)
	}
	return b
}
