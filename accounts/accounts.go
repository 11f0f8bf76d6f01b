// Package accounts holds the rules for people's accounts: what a valid email and password are,
// how passwords are hashed (bcrypt), and how a sign-in becomes a revocable session token.
package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"parley/db"
	"parley/fault"
)

// Password length bounds in bytes. bcrypt reads at most 72 bytes, so longer passwords are refused
// rather than silently truncated.
const (
	MinPasswordLen = 8
	MaxPasswordLen = 72
	maxEmailLen    = 254
	maxNameLen     = 80
)

// Store is what accounts needs from the database.
type Store interface {
	CreateUser(ctx context.Context, email, displayName, passwordHash string) (db.User, error)
	UserByEmail(ctx context.Context, email string) (db.User, error)
	CreateUserSession(ctx context.Context, tokenHash []byte, userID int64, userAgent, ip string, expiresAt time.Time) error
	UserBySession(ctx context.Context, tokenHash []byte, ttl time.Duration) (db.User, error)
	DeleteUserSession(ctx context.Context, tokenHash []byte) error
	DeleteExpiredSessions(ctx context.Context) (users, guests int64, err error)
}

// Service signs people up and in. SessionTTL is how long an unused session lives.
type Service struct {
	Store      Store
	SessionTTL time.Duration
	// Cost is the bcrypt cost; zero means bcrypt.DefaultCost.
	Cost int
}

// ErrBadCredentials is the one answer to a wrong email or a wrong password, so the response never
// tells whether an account exists.
var ErrBadCredentials = &fault.Error{Code: fault.Unauthorized, Message: "Email or password is incorrect."}

// dummyHash is compared against when the email is unknown, so both failures take the same time.
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("parley-timing-equaliser"), bcrypt.DefaultCost)

// SignUpInput is what the sign-up form sends.
type SignUpInput struct {
	Email, DisplayName, Password string
}

// SignUp validates the input, hashes the password and creates the account. Errors are
// *fault.Error with Field set ("email", "password", "display_name") for the form to show.
func (s *Service) SignUp(ctx context.Context, in SignUpInput) (db.User, error) {
	email, err := NormaliseEmail(in.Email)
	if err != nil {
		return db.User{}, err
	}
	name := strings.TrimSpace(in.DisplayName)
	if !utf8.ValidString(name) || utf8.RuneCountInString(name) > maxNameLen {
		return db.User{}, fault.Field("display_name", "Name must be valid text of at most 80 characters.")
	}
	if err := CheckPassword(in.Password); err != nil {
		return db.User{}, err
	}
	cost := s.Cost
	if cost == 0 {
		cost = bcrypt.DefaultCost
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(in.Password), cost)
	if err != nil {
		return db.User{}, err
	}
	if name == "" {
		name, _, _ = strings.Cut(email, "@")
	}
	return s.Store.CreateUser(ctx, email, name, string(hash))
}

// NormaliseEmail trims the address and checks it is one plain address (local@domain.tld).
func NormaliseEmail(raw string) (string, error) {
	email := strings.TrimSpace(raw)
	invalid := fault.Field("email", "Enter an email address like name@example.com.")
	if email == "" || len(email) > maxEmailLen || !utf8.ValidString(email) {
		return "", invalid
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || addr.Name != "" {
		return "", invalid
	}
	_, domain, _ := strings.Cut(email, "@")
	if !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") {
		return "", invalid
	}
	return email, nil
}

// CheckPassword enforces the length bounds (in bytes) and valid UTF-8.
func CheckPassword(pw string) error {
	switch {
	case !utf8.ValidString(pw):
		return fault.Field("password", "Password must be valid text.")
	case len(pw) < MinPasswordLen:
		return fault.Field("password", "Password must be at least 8 characters.")
	case len(pw) > MaxPasswordLen:
		return fault.Field("password", "Password must be at most 72 bytes.")
	}
	return nil
}

// Authenticate returns the account whose email and password match, or ErrBadCredentials.
func (s *Service) Authenticate(ctx context.Context, email, password string) (db.User, error) {
	email = strings.TrimSpace(email)
	if !utf8.ValidString(email) || len(email) > maxEmailLen || strings.ContainsRune(email, 0) {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return db.User{}, ErrBadCredentials
	}
	u, err := s.Store.UserByEmail(ctx, email)
	if errors.Is(err, db.ErrNotFound) {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return db.User{}, ErrBadCredentials
	}
	if err != nil {
		return db.User{}, err
	}
	if bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(password)) != nil {
		return db.User{}, ErrBadCredentials
	}
	return u, nil
}

// StartSession creates a session for the user and returns its token: 32 random bytes, base64url
// without padding. Only the token's SHA-256 is stored, so a database leak yields no live cookies.
func (s *Service) StartSession(ctx context.Context, userID int64, userAgent, ip string) (string, error) {
	token, hash, err := NewToken()
	if err != nil {
		return "", err
	}
	if err := s.Store.CreateUserSession(ctx, hash, userID, userAgent, ip, time.Now().Add(s.SessionTTL)); err != nil {
		return "", err
	}
	return token, nil
}

// UserForToken returns the account of a live session token, or db.ErrNotFound.
func (s *Service) UserForToken(ctx context.Context, token string) (db.User, error) {
	if token == "" {
		return db.User{}, db.ErrNotFound
	}
	return s.Store.UserBySession(ctx, HashToken(token), s.SessionTTL)
}

// EndSession revokes a session token.
func (s *Service) EndSession(ctx context.Context, token string) error {
	return s.Store.DeleteUserSession(ctx, HashToken(token))
}

// NewToken returns a random token (32 bytes, base64url, no padding) and its SHA-256.
func NewToken() (token string, hash []byte, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", nil, err
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token), nil
}

// HashToken is the SHA-256 of a token, as stored in the sessions tables.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
