package handlers

import (
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/sessions"
)

// sessionCookies is the cookie store (gorilla's, signed and encrypted) with a memo of the session
// tokens it has read: checking a session cookie's HMAC, decrypting it and gob-decoding its values
// took about a tenth of a chat page's time besides its SQL, for the same cookie on every request.
//
// A memo entry maps the exact cookie value, which only ever decoded successfully, to its token,
// for at most tokenMemoTTL; the session row is still checked on every request (UserForToken), so
// a revoked or expired session ends as before. The memo holds at most tokenMemoSize cookies and is
// emptied when full.
type sessionCookies struct {
	*sessions.CookieStore
	mu     sync.Mutex
	tokens map[string]memoToken
}

// memoToken is a session token read from a cookie, and until when the memo may answer with it.
type memoToken struct {
	token string
	until time.Time
}

const (
	tokenMemoTTL  = time.Minute
	tokenMemoSize = 10_000
)

func newSessionCookies(store *sessions.CookieStore) *sessionCookies {
	return &sessionCookies{CookieStore: store, tokens: map[string]memoToken{}}
}

// sessionToken is the session token in r's session cookie, "" when it has none or the cookie does
// not verify.
func (s *sessionCookies) sessionToken(r *http.Request) string {
	raw, err := r.Cookie(sessionCookie)
	if err != nil {
		return ""
	}
	now := time.Now()
	s.mu.Lock()
	t, ok := s.tokens[raw.Value]
	s.mu.Unlock()
	if ok && now.Before(t.until) {
		return t.token
	}
	sess, _ := s.Get(r, sessionCookie) // a bad cookie yields a new, empty session
	token, _ := sess.Values[tokenKey].(string)
	if token == "" {
		return ""
	}
	s.mu.Lock()
	if len(s.tokens) >= tokenMemoSize {
		clear(s.tokens)
	}
	s.tokens[raw.Value] = memoToken{token: token, until: now.Add(tokenMemoTTL)}
	s.mu.Unlock()
	return token
}
