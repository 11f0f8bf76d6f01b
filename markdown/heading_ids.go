package markdown

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/yuin/goldmark/ast"
)

// headingIDPrefix starts every heading id RenderPage writes, so no heading can take an id the app
// uses (or clobber a global name a script relies on); the sanitiser allows ids with it only.
const headingIDPrefix = "h-"

// headingSlug is GitHub's anchor for a heading's text: lower case, spaces to hyphens, letters,
// digits, '-' and '_' kept, everything else dropped.
func headingSlug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(title)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// headingIDs hands out heading ids in document order: "h-" + slug, and for a slug already used,
// "h-slug-1", "h-slug-2" … as GitHub does. It implements goldmark's parser.IDs.
type headingIDs struct {
	used map[string]bool
	next map[string]int
}

func newHeadingIDs() *headingIDs {
	return &headingIDs{used: map[string]bool{}, next: map[string]int{}}
}

func (h *headingIDs) id(title string) string {
	base := headingIDPrefix + headingSlug(title)
	id := base
	for h.used[id] {
		h.next[base]++
		id = base + "-" + strconv.Itoa(h.next[base])
	}
	h.used[id] = true
	return id
}

// Generate returns the id of a heading whose text is value (goldmark's parser.IDs).
func (h *headingIDs) Generate(value []byte, _ ast.NodeKind) []byte {
	return []byte(h.id(string(value)))
}

// Put marks an id as used (goldmark's parser.IDs).
func (h *headingIDs) Put(value []byte) { h.used[string(value)] = true }

// HeadingIDs returns the id RenderPage gives each heading of a page whose headings have these
// titles, in document order (Section.Title): "h-" + GitHub's slug, "-1", "-2" … added to repeats.
// A link "#" + id leads to the heading.
func HeadingIDs(titles []string) []string {
	h := newHeadingIDs()
	ids := make([]string, len(titles))
	for i, t := range titles {
		ids[i] = h.id(t)
	}
	return ids
}
