package markdown

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"regexp"
	"unicode"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// codeBlockRenderer renders fenced code blocks through goldmark-highlighting
// (chroma, with classes) and adds two things to it:
//
//   - a block whose closing fence has not arrived (the tail of a streamed
//     answer) is written plain, not highlighted: it changes on every
//     re-render and chroma is the slowest step of the pipeline;
//   - highlighted blocks are cached by their info string and code, so the
//     finished blocks of a streamed answer are highlighted once.
type codeBlockRenderer struct {
	inner     renderer.NodeRenderer
	highlight renderer.NodeRendererFunc
	cache     *htmlCache
}

func newCodeBlockRenderer() *codeBlockRenderer {
	inner := highlighting.NewHTMLRenderer(
		highlighting.WithStyle(chromaStyle),
		highlighting.WithFormatOptions(chromahtml.WithClasses(true)),
		highlighting.WithWrapperRenderer(wrapCodeBlock),
	)
	r := &codeBlockRenderer{inner: inner, cache: newHTMLCache(512, 8<<20)}
	inner.RegisterFuncs(funcCatcher(func(kind ast.NodeKind, f renderer.NodeRendererFunc) {
		if kind == ast.KindFencedCodeBlock {
			r.highlight = f
		}
	}))
	return r
}

// funcCatcher records the render function goldmark-highlighting registers.
type funcCatcher func(ast.NodeKind, renderer.NodeRendererFunc)

func (c funcCatcher) Register(k ast.NodeKind, f renderer.NodeRendererFunc) { c(k, f) }

// SetOption passes goldmark's HTML options on to goldmark-highlighting.
func (r *codeBlockRenderer) SetOption(name renderer.OptionName, value any) {
	if s, ok := r.inner.(renderer.SetOptioner); ok {
		s.SetOption(name, value)
	}
}

func (r *codeBlockRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, r.render)
}

var nohlAttr = []byte("nohl") // goldmark-highlighting's "do not highlight"

func (r *codeBlockRenderer) render(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.FencedCodeBlock)
	if !entering {
		return ast.WalkContinue, nil
	}
	if unclosedFence(n, source) {
		n.SetAttribute(nohlAttr, true)
		return r.highlight(w, source, n, true)
	}
	h := sha256.New()
	if n.Info != nil {
		h.Write(n.Info.Segment.Value(source))
	}
	h.Write([]byte{0})
	for i := 0; i < n.Lines().Len(); i++ {
		line := n.Lines().At(i)
		h.Write(line.Value(source))
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	if html, ok := r.cache.get(key); ok {
		_, _ = w.Write(html)
		return ast.WalkContinue, nil
	}
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	status, err := r.highlight(bw, source, n, true)
	if err != nil {
		return status, err
	}
	_ = bw.Flush()
	r.cache.put(key, buf.Bytes())
	_, _ = w.Write(buf.Bytes())
	return status, nil
}

// unclosedFence reports whether a fenced block runs to the end of the text
// without its closing fence: nothing but white space follows its last line.
// (A closed block is followed at least by its fence.)
func unclosedFence(n *ast.FencedCodeBlock, source []byte) bool {
	l := n.Lines().Len()
	if l == 0 {
		return false
	}
	rest := source[n.Lines().At(l-1).Stop:]
	return len(bytes.TrimFunc(rest, unicode.IsSpace)) == 0
}

// languageName is what a fence's info word must look like to become a
// class; anything else (quotes, angle brackets, spaces) is left out.
var languageName = regexp.MustCompile(`^[A-Za-z0-9_+#.-]{1,32}$`)

// wrapCodeBlock writes the `<div class="code-block">` around every fenced
// block. When chroma did not highlight the block (unknown or no language,
// or still open), goldmark-highlighting expects the wrapper to open and
// close <pre><code>.
func wrapCodeBlock(w util.BufWriter, ctx highlighting.CodeBlockContext, entering bool) {
	if entering {
		_, _ = w.WriteString(`<div class="code-block`)
		if lang, ok := ctx.Language(); ok && languageName.Match(lang) {
			_, _ = w.WriteString(` language-`)
			_, _ = w.Write(util.EscapeHTML(lang))
		}
		_, _ = w.WriteString(`">`)
		if !ctx.Highlighted() {
			_, _ = w.WriteString(`<pre><code>`)
		}
		return
	}
	if !ctx.Highlighted() {
		_, _ = w.WriteString(`</code></pre>`)
	}
	_, _ = w.WriteString("</div>\n")
}
