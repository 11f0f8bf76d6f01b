package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"parley/views"
)

func (a *app) showHome(c echo.Context) error {
	return render(c, http.StatusOK, views.HomePage(page(c, "", "")))
}
