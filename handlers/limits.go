package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"parley/config"
	"parley/db"
	"parley/fault"
)

// limits are the rate limits that protect cost: chat messages per person (guests per client IP),
// sign-in attempts per client IP and per account, and agent password attempts per agent and IP.
// They are token buckets shared by every instance on the database (db.TakeRates, one statement
// per limited request, none for the others; a chat page's turn takes its message in the statement
// that stores it, see messageCheck), so N instances behind a load balancer still allow
// a person the limit once, not N times. While the database cannot answer, each instance falls
// back to buckets of its own (x/time/rate) with the same rates.
type limits struct {
	store *db.Store
	log   *slog.Logger

	signIn, messages, guestMessages rateLimit
	// local are the fallback buckets, by the same keys.
	local keyedLimiter
}

// rateLimit is one limit: n requests a minute, in bursts of up to n.
type rateLimit struct {
	kind string
	n    int
}

func (r rateLimit) check(key string) db.RateCheck {
	return db.RateCheck{Key: r.kind + ":" + key, Every: time.Minute / time.Duration(max(r.n, 1)), Burst: max(r.n, 1)}
}

func newLimits(cfg config.Config, store *db.Store, log *slog.Logger) *limits {
	return &limits{
		store: store, log: log,
		signIn:        rateLimit{"signin", cfg.SignInRate},
		messages:      rateLimit{"messages", cfg.MessagesPerMinute},
		guestMessages: rateLimit{"guest-messages", guestRate(cfg)},
		local:         keyedLimiter{buckets: map[string]*rate.Limiter{}},
	}
}

var errTooManySignIns = &fault.Error{Code: fault.RateLimited, Message: "Too many attempts. Wait a minute and try again."}

// take takes one request from every check's bucket and reports whether all allowed it, and if
// not how long until they would.
func (l *limits) take(ctx context.Context, checks ...db.RateCheck) (time.Duration, bool) {
	results, err := l.store.TakeRates(ctx, checks...)
	if err != nil {
		if !db.Unreachable(err) {
			l.log.Warn("shared rate limits unavailable, limiting on this instance", "error", err)
		}
		results = make([]db.RateResult, len(checks))
		for i, c := range checks {
			results[i] = l.local.take(c)
		}
	}
	var wait time.Duration
	ok := true
	for _, r := range results {
		if !r.Allowed {
			ok, wait = false, max(wait, r.Wait)
		}
	}
	return wait, ok
}

// signInByIP limits sign-in and sign-up posts per client IP (echo's IPExtractor decides the IP).
func (l *limits) signInByIP(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if _, ok := l.take(c.Request().Context(), l.signIn.check("ip:"+hashed(c.RealIP()))); !ok {
			c.Response().Header().Set("Retry-After", "60")
			return errTooManySignIns
		}
		return next(c)
	}
}

// allowSignIn limits password sign-in attempts per client IP and per account email, whoever makes
// them, in one check.
func (l *limits) allowSignIn(ctx context.Context, ip, email string) bool {
	_, ok := l.take(ctx, l.signIn.check("ip:"+hashed(ip)),
		l.signIn.check("account:"+hashed(strings.ToLower(strings.TrimSpace(email)))))
	return ok
}

// messageCheck is the bucket a chat message takes from: the user's, or for a guest (userID 0) the
// client IP's at the stricter guest rate (a new guest session does not get a new bucket). A chat
// page turn hands it to db.StartTurn (NewTurn.Rate), which takes it in the statement that stores
// the turn: no statement or commit of its own. Such a take has no fallback on this instance; it
// needs the database, which storing the turn needs anyway.
func (l *limits) messageCheck(userID int64, ip string) db.RateCheck {
	if userID != 0 {
		return l.messages.check(strconv.FormatInt(userID, 10))
	}
	return l.guestMessages.check(hashed(ip))
}

// allowMessage takes one chat message from the sender's bucket (messageCheck: the user's, or for a
// guest, userID 0, the client IP's); when empty it reports how long until the next one is allowed.
func (l *limits) allowMessage(ctx context.Context, userID int64, ip string) (time.Duration, bool) {
	return l.take(ctx, l.messageCheck(userID, ip))
}

// allowAgentPassword takes one password attempt for the agent from the client IP's bucket.
func (l *limits) allowAgentPassword(ctx context.Context, agentID int64, ip string) bool {
	_, ok := l.take(ctx, l.signIn.check("agent:"+strconv.FormatInt(agentID, 10)+":"+hashed(ip)))
	return ok
}

// forgetFullBuckets deletes, every interval until stop, the shared buckets that are full again.
func (l *limits) forgetFullBuckets(every time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if _, err := l.store.ForgetRates(ctx); err != nil && !db.Unreachable(err) {
				l.log.Warn("deleting full rate-limit buckets", "error", err)
			}
			cancel()
		}
	}
}

// hashed names an IP or an email in a bucket key without storing it.
func hashed(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
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

// keyedLimiter is one x/time/rate token bucket per key, in this process: the fallback while the
// database cannot answer.
type keyedLimiter struct {
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

func (k *keyedLimiter) take(c db.RateCheck) db.RateResult {
	k.mu.Lock()
	b, ok := k.buckets[c.Key]
	if !ok {
		if len(k.buckets) > 100_000 { // bound memory: forget everyone, the buckets refill anyway
			k.buckets = map[string]*rate.Limiter{}
		}
		b = rate.NewLimiter(rate.Every(c.Every), c.Burst)
		k.buckets[c.Key] = b
	}
	k.mu.Unlock()
	r := b.Reserve()
	if d := r.Delay(); d > 0 {
		r.Cancel()
		return db.RateResult{Wait: d}
	}
	return db.RateResult{Allowed: true}
}
