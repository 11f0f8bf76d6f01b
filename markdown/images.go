package markdown

import (
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// imageHosts is the allow-list AllowImageHosts sets: lower-case host names (or host:port) whose
// images are loaded. Empty: no image from another origin is loaded.
var imageHosts atomic.Pointer[map[string]bool]

// AllowImageHosts sets the hosts (e.g. "images.example.com", "cdn.example.org:8443") whose images
// messages and pages may load; every other origin's image is shown as a link naming its alt text
// and host. Parley calls it once at start-up from PARLEY_IMAGE_HOSTS (the CSP's img-src lists the
// same hosts); it empties the render caches, whose HTML depended on the old list.
func AllowImageHosts(hosts []string) {
	set := make(map[string]bool, len(hosts))
	for _, h := range hosts {
		set[strings.ToLower(h)] = true
	}
	imageHosts.Store(&set)
	policy.Store(newPolicy(hosts))
	finalCache.clear()
	pageCache.clear()
}

// rasterTypes are the data: image types shown inline; SVG (which can hold scripts and links) and
// anything else is not.
var rasterTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true,
	"image/webp": true, "image/avif": true, "image/bmp": true}

// imageSource is how an image's destination may be shown.
type imageSource int

const (
	imageLoad    imageSource = iota // same origin, an allowed host, or a raster data: URL
	imageLink                       // another origin: a link showing the alt text and host
	imageRefused                    // nothing loadable (a script URL, SVG data, unparseable): the alt text only
)

// classifyImage decides how an image with the (URL-escaped) destination dest is shown, and names
// its host for imageLink.
func classifyImage(dest string) (imageSource, string) {
	if scheme, rest, ok := strings.Cut(dest, ":"); ok && strings.EqualFold(scheme, "data") {
		mediaType, _, _ := strings.Cut(rest, ",")
		mediaType, _, _ = strings.Cut(mediaType, ";")
		if rasterTypes[strings.ToLower(strings.TrimSpace(mediaType))] {
			return imageLoad, ""
		}
		return imageRefused, ""
	}
	u, err := url.Parse(dest)
	if err != nil || strings.ContainsAny(dest, `\`) {
		return imageRefused, ""
	}
	if u.Scheme == "" && u.Host == "" && !strings.HasPrefix(dest, "//") {
		return imageLoad, "" // our own origin
	}
	if u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return imageRefused, ""
	}
	if hosts := imageHosts.Load(); hosts != nil && ((*hosts)[strings.ToLower(u.Host)] || (*hosts)[strings.ToLower(u.Hostname())]) {
		return imageLoad, ""
	}
	return imageLink, strings.ToLower(u.Hostname())
}

// imageRenderer writes images by the image policy (classifyImage): an <img> for what may load, a
// link `<a class="image-link">alt · host</a>` for another origin's image (plain text inside a link,
// which cannot nest), and the alt text alone for a destination that cannot be an image.
type imageRenderer struct{}

func (imageRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindImage, renderImage)
}

func renderImage(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Image)
	dest := util.URLEscape(n.Destination, true)
	alt := util.EscapeHTML([]byte(plainText(n, source)))
	kind, host := classifyImage(string(dest))
	switch kind {
	case imageLoad:
		_, _ = w.WriteString(`<img src="`)
		_, _ = w.Write(util.EscapeHTML(dest))
		_, _ = w.WriteString(`" alt="`)
		_, _ = w.Write(alt)
		_ = w.WriteByte('"')
		if n.Title != nil {
			_, _ = w.WriteString(` title="`)
			_, _ = w.Write(util.EscapeHTML(n.Title))
			_ = w.WriteByte('"')
		}
		_ = w.WriteByte('>')
	case imageLink:
		label := string(alt)
		if strings.TrimSpace(label) == "" {
			label = "image"
		}
		label += " · " + string(util.EscapeHTML([]byte(host)))
		if insideLink(n) {
			_, _ = w.WriteString(`<span class="image-link">` + label + `</span>`)
			break
		}
		_, _ = w.WriteString(`<a href="`)
		_, _ = w.Write(util.EscapeHTML(dest))
		_, _ = w.WriteString(`" rel="nofollow noopener" target="_blank" class="image-link" title="Image not loaded: it is on another site">`)
		_, _ = w.WriteString(label + `</a>`)
	default:
		_, _ = w.Write(alt)
	}
	return ast.WalkSkipChildren, nil
}

// insideLink reports whether n sits inside a link (an image link's label).
func insideLink(n ast.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind() == ast.KindLink || p.Kind() == ast.KindAutoLink {
			return true
		}
	}
	return false
}

// plainText is the text of n's descendants (an image's alt text), markup dropped.
func plainText(n ast.Node, source []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(source))
			if t.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.AutoLink:
			b.Write(t.Label(source))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
