package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"parley/pages"
)

// pageTextBodyBytes is the body limit of the requests that carry a page's whole text (the New
// page form and the editor's autosave): a page at pages.MaxContentBytes may double when the
// browser sends its line endings as CRLF, plus the form's other fields. It is never below the
// configured limit.
func pageTextBodyBytes(maxBody int64) int64 {
	return max(maxBody, 2*pages.MaxContentBytes+64<<10)
}

// bodyLimit bounds every request body at maxBody bytes (413 beyond), except the routes that carry
// a page's whole text, bounded at pageTextBodyBytes, and export uploads (Account → Import), bounded
// at importMax (PARLEY_IMPORT_MAX_BYTES; the import handler names the limit). It must run before
// anything reads a body (the CSRF check reads forms).
func bodyLimit(maxBody, importMax int64) echo.MiddlewareFunc {
	general := middleware.BodyLimit(fmt.Sprintf("%dB", maxBody))
	pageText := middleware.BodyLimit(fmt.Sprintf("%dB", pageTextBodyBytes(maxBody)))
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		g, p := general(next), pageText(next)
		return func(c echo.Context) error {
			if isImportUpload(c) {
				c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, importMax)
				return next(c)
			}
			if c.Request().Method == http.MethodPost && (c.Path() == "/pages" || c.Path() == "/pages/:id/save") {
				return p(c)
			}
			return g(c)
		}
	}
}
