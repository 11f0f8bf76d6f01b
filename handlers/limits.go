package handlers

import (
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/time/rate"

	"parley/config"
	"parley/fault"
)

// limits are the in-process rate limiters (token buckets from x/time/rate via echo's memory store).
type limits struct {
	signInIP      *middleware.RateLimiterMemoryStore
	signInAccount *middleware.RateLimiterMemoryStore
}

func newLimits(cfg config.Config) *limits {
	perMinute := func(n int) *middleware.RateLimiterMemoryStore {
		return middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
			Rate: rate.Limit(float64(n) / 60), Burst: n, ExpiresIn: 10 * time.Minute,
		})
	}
	return &limits{signInIP: perMinute(cfg.SignInRate), signInAccount: perMinute(cfg.SignInRate)}
}

var errTooManySignIns = &fault.Error{Code: fault.RateLimited, Message: "Too many attempts. Wait a minute and try again."}

// signInByIP limits sign-in and sign-up posts per client IP (echo's IPExtractor decides the IP).
func (l *limits) signInByIP(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if ok, _ := l.signInIP.Allow(c.RealIP()); !ok {
			c.Response().Header().Set("Retry-After", "60")
			return errTooManySignIns
		}
		return next(c)
	}
}

// allowSignInFor limits sign-in attempts per account email, whoever makes them.
func (l *limits) allowSignInFor(email string) bool {
	ok, _ := l.signInAccount.Allow(strings.ToLower(strings.TrimSpace(email)))
	return ok
}
