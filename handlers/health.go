package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// healthz answers 200 while the process serves requests (liveness).
func (a *app) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 when the database is reachable and every migration is applied, 503 otherwise.
func (a *app) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := a.store.Ping(ctx); err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": "database unreachable"})
	}
	current, err := a.store.MigrationsCurrent(ctx)
	if err != nil || !current {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": "migrations pending"})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}
