package handlers

import (
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
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
	messages      *keyedLimiter
	// guestMessages is keyed by a hash of the guest's client IP.
	guestMessages *keyedLimiter
	// agentPasswords limits password attempts per agent and client IP.
	agentPasswords *middleware.RateLimiterMemoryStore
}

func newLimits(cfg config.Config) *limits {
	perMinute := func(n int) *middleware.RateLimiterMemoryStore {
		return middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
			Rate: rate.Limit(float64(n) / 60), Burst: n, ExpiresIn: 10 * time.Minute,
		})
	}
	return &limits{
		signInIP: perMinute(cfg.SignInRate), signInAccount: perMinute(cfg.SignInRate),
		messages:       &keyedLimiter{perMinute: cfg.MessagesPerMinute, buckets: map[int64]*rate.Limiter{}},
		guestMessages:  &keyedLimiter{perMinute: guestRate(cfg), buckets: map[int64]*rate.Limiter{}},
		agentPasswords: perMinute(cfg.SignInRate),
	}
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

// allowMessage takes one chat message from the user's bucket; when empty it reports how long until
// the next one is allowed.
func (l *limits) allowMessage(userID int64) (time.Duration, bool) { return l.messages.allow(userID) }

// allowGuestMessage is allowMessage for a guest, keyed by client IP.
func (l *limits) allowGuestMessage(ip string) (time.Duration, bool) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(ip))
	return l.guestMessages.allow(int64(h.Sum64()))
}

// allowAgentPassword takes one password attempt for the agent from the client IP's bucket.
func (l *limits) allowAgentPassword(agentID int64, ip string) bool {
	ok, _ := l.agentPasswords.Allow(strconv.FormatInt(agentID, 10) + "|" + ip)
	return ok
}

// guestRate is the guests' messages per minute: PARLEY_GUEST_MESSAGES_PER_MINUTE, at most the
// users' rate.
func guestRate(cfg config.Config) int {
	n := cfg.GuestMessagesPerMinute
	if n <= 0 || n > cfg.MessagesPerMinute {
		n = min(6, cfg.MessagesPerMinute)
	}
	return n
}

// keyedLimiter is one x/time/rate token bucket per user (echo's store cannot say when a denied
// request may retry, which the composer needs to re-enable itself).
type keyedLimiter struct {
	perMinute int
	mu        sync.Mutex
	buckets   map[int64]*rate.Limiter
}

func (k *keyedLimiter) allow(key int64) (time.Duration, bool) {
	k.mu.Lock()
	b, ok := k.buckets[key]
	if !ok {
		if len(k.buckets) > 100_000 { // bound memory: forget everyone, the buckets refill anyway
			k.buckets = map[int64]*rate.Limiter{}
		}
		b = rate.NewLimiter(rate.Limit(float64(k.perMinute)/60), k.perMinute)
		k.buckets[key] = b
	}
	k.mu.Unlock()
	r := b.Reserve()
	if d := r.Delay(); d > 0 {
		r.Cancel()
		return d, false
	}
	return 0, true
}
