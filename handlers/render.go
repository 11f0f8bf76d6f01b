package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// render writes a templ component with the status. It renders into a buffer first, so a render
// error still becomes a clean 500 instead of half a page.
func render(c echo.Context, status int, component templ.Component) error {
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	if err := component.Render(c.Request().Context(), buf); err != nil {
		return err
	}
	// The length is known: the page goes out whole rather than chunked.
	c.Response().Header().Set(echo.HeaderContentLength, strconv.Itoa(buf.Len()))
	return c.HTMLBlob(status, buf.Bytes())
}

// isFragment reports whether htmx asked for a fragment (an hx-get/hx-post, not a boosted navigation):
// such requests get a partial, full navigations get the whole page.
func isFragment(c echo.Context) bool {
	h := c.Request().Header
	return h.Get("HX-Request") == "true" && h.Get("HX-Boosted") != "true"
}

// sessionURL is the page of a conversation: /sessions/{id}/chat.
func sessionURL(exchangeID int64) string {
	return "/sessions/" + strconv.FormatInt(exchangeID, 10) + "/chat"
}

// redirect sends the browser to a local URL; htmx requests get HX-Redirect so the whole page changes.
func redirect(c echo.Context, to string) error {
	if isFragment(c) {
		c.Response().Header().Set("HX-Redirect", to)
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, to)
}

// safeNext returns target when it is a local path (see isLocalPath), else "/".
func safeNext(target string) string {
	if !isLocalPath(target) {
		return "/"
	}
	u, _ := url.Parse(target)
	return u.RequestURI()
}

// isLocalPath reports whether target is a path on this site: "/x", never "//host", "/\\host" (which
// browsers read as //host) or a full URL, and without control characters or spaces (browsers drop
// tabs and newlines, turning "/\t/host" into "//host").
func isLocalPath(target string) bool {
	if !strings.HasPrefix(target, "/") || strings.HasPrefix(target, "//") || strings.HasPrefix(target, "/\\") ||
		strings.ContainsFunc(target, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return false
	}
	u, err := url.Parse(target)
	return err == nil && u.Host == "" && u.Scheme == ""
}

// isAPI reports whether the request is for the JSON API.
func isAPI(c echo.Context) bool {
	return strings.HasPrefix(c.Request().URL.Path, "/api/")
}
