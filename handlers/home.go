package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"parley/views"
)

func (a *app) showHome(c echo.Context) error {
	return render(c, http.StatusOK, views.HomePage(page(c, "", "")))
}

// showComingSoon answers an area whose issue has not landed yet with an honest page, not a 404.
func (a *app) showComingSoon(section, title string) echo.HandlerFunc {
	return func(c echo.Context) error {
		return render(c, http.StatusOK, views.ComingSoonPage(page(c, title, section), title))
	}
}
