package markdown

import (
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// refParser finds link reference definitions and the links that use them, as CommonMark reads
// them (definitions inside code blocks or after a paragraph line do not count); defParser finds
// only the definitions (block structure, no inline parsing: several times faster).
var (
	refParser = goldmark.DefaultParser()
	defParser = parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
)

// missingRef prefixes the destinations given to removed definitions to spot the links using them.
const missingRef = "parley-removed-reference:"

// BrokenReferences lists the link reference definitions (`[name]: https://…`) that old has and
// new lacks while new still uses them (`[text][name]`, `[name][]`, `[name]`, images alike): the
// links that would show as plain text after the change. Labels are as old writes them, sorted;
// nil when none.
func BrokenReferences(old, new string) []string {
	if !strings.Contains(old, "]:") {
		return nil // cheap: no definition at all
	}
	defined := references(old)
	if len(defined) == 0 {
		return nil
	}
	kept := map[string]bool{}
	for _, r := range references(new) {
		kept[util.ToLinkReference(r.Label())] = true
	}
	ctx := parser.NewContext()
	var removed []string
	for _, r := range defined {
		key := util.ToLinkReference(r.Label())
		if kept[key] {
			continue
		}
		kept[key] = true // a label defined twice is listed once
		ctx.AddReference(parser.NewReference(r.Label(), []byte(missingRef+key), nil))
		removed = append(removed, string(r.Label()))
	}
	if len(removed) == 0 {
		return nil
	}
	used := map[string]bool{}
	doc := refParser.Parse(text.NewReader([]byte(new)), parser.WithContext(ctx))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		var dest []byte
		switch l := n.(type) {
		case *ast.Link:
			dest = l.Destination
		case *ast.Image:
			dest = l.Destination
		}
		if entering && strings.HasPrefix(string(dest), missingRef) {
			used[strings.TrimPrefix(string(dest), missingRef)] = true
		}
		return ast.WalkContinue, nil
	})
	var broken []string
	for _, label := range removed {
		if used[util.ToLinkReference([]byte(label))] {
			broken = append(broken, label)
		}
	}
	slices.Sort(broken)
	return broken
}

// references parses src for its link reference definitions.
func references(src string) []parser.Reference {
	ctx := parser.NewContext()
	defParser.Parse(text.NewReader([]byte(src)), parser.WithContext(ctx))
	return ctx.References()
}
