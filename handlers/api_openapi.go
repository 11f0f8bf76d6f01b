package handlers

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// openAPI is the OpenAPI 3.0 description of the JSON API, written by hand next to the routes
// (routes_api.go); TestOpenAPIDescribesEveryAPIRoute keeps the two in step.
//
//go:embed openapi.json
var openAPI []byte

// serveOpenAPI is GET /api/openapi.json (public: it describes, it reveals nothing).
func serveOpenAPI(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-cache")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPI)
}
