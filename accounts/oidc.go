package accounts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"parley/db"
	"parley/fault"
)

// OIDCConfig configures sign-in through an OpenID Connect provider (config.Config's PARLEY_OIDC_*).
type OIDCConfig struct {
	// Issuer is the provider's issuer URL (its discovery document is Issuer +
	// /.well-known/openid-configuration); ClientID and ClientSecret are Parley's registration.
	Issuer, ClientID, ClientSecret string
	// RedirectURL is Parley's callback: PARLEY_PUBLIC_URL + /auth/oidc/callback.
	RedirectURL string
	Scopes      []string
	// AllowedDomains, when not empty, are the only email domains that may sign in.
	AllowedDomains []string
	// AdminGroup, when set, is the group (in the GroupsClaim claim) whose members are administrators.
	AdminGroup, GroupsClaim string
	// TrustEmails counts an email as verified when the token has no email_verified claim.
	TrustEmails bool
}

// OIDCStore is what OpenID Connect sign-in needs from the database.
type OIDCStore interface {
	UserByIdentity(ctx context.Context, issuer, subject string) (db.User, error)
	LinkIdentity(ctx context.Context, issuer, subject string, userID int64, email string) error
	UserByEmail(ctx context.Context, email string) (db.User, error)
	UserByID(ctx context.Context, id int64) (db.User, error)
	CreateUser(ctx context.Context, email, displayName, passwordHash string) (db.User, error)
	SetAdmin(ctx context.Context, userID int64, admin bool) error
}

// OIDC signs people in with the authorization code flow (PKCE S256, state and nonce). The
// provider's discovery document is fetched at the first sign-in, so Parley starts while the
// provider is down.
type OIDC struct {
	Config OIDCConfig
	Store  OIDCStore

	mu       sync.Mutex
	provider *oidc.Provider
}

// Identity is what a verified ID token says about the person.
type Identity struct {
	Issuer, Subject string
	Email           string
	EmailVerified   bool
	Name            string
	Groups          []string
}

// ErrOIDCFailed is the answer to a sign-in the provider or the checks refused; the cause is logged.
var ErrOIDCFailed = &fault.Error{Code: fault.Unauthorized, Message: "Single sign-on did not work. Try again."}

func (o *OIDC) discover(ctx context.Context) (*oidc.Provider, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.provider != nil {
		return o.provider, nil
	}
	p, err := oidc.NewProvider(ctx, o.Config.Issuer)
	if err != nil {
		return nil, &fault.Error{Code: fault.Unavailable, Message: "The sign-on provider cannot be reached. Try again in a moment.", Err: err}
	}
	o.provider = p
	return p, nil
}

func (o *OIDC) oauth(p *oidc.Provider) *oauth2.Config {
	scopes := o.Config.Scopes
	if !slices.Contains(scopes, oidc.ScopeOpenID) {
		scopes = append([]string{oidc.ScopeOpenID}, scopes...)
	}
	return &oauth2.Config{ClientID: o.Config.ClientID, ClientSecret: o.Config.ClientSecret,
		RedirectURL: o.Config.RedirectURL, Endpoint: p.Endpoint(), Scopes: scopes}
}

// AuthCodeURL is the provider's sign-in page for this attempt: state and nonce are random values
// kept in the browser's cookie, verifier the PKCE code verifier (oauth2.GenerateVerifier).
func (o *OIDC) AuthCodeURL(ctx context.Context, state, nonce, verifier string) (string, error) {
	p, err := o.discover(ctx)
	if err != nil {
		return "", err
	}
	return o.oauth(p).AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), nil
}

// Exchange trades the callback's code for tokens (with the PKCE verifier), verifies the ID token
// (signature, issuer, audience, expiry) and its nonce, and returns who signed in. Any failure is
// ErrOIDCFailed wrapping the cause.
func (o *OIDC) Exchange(ctx context.Context, code, verifier, nonce string) (Identity, error) {
	p, err := o.discover(ctx)
	if err != nil {
		return Identity{}, err
	}
	fail := func(err error) (Identity, error) {
		return Identity{}, &fault.Error{Code: ErrOIDCFailed.Code, Message: ErrOIDCFailed.Message, Err: err}
	}
	tok, err := o.oauth(p).Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return fail(fmt.Errorf("code exchange: %w", err))
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok {
		return fail(errors.New("no id_token in the token response"))
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: o.Config.ClientID}).Verify(ctx, raw)
	if err != nil {
		return fail(fmt.Errorf("id token: %w", err))
	}
	if idt.Nonce != nonce {
		return fail(errors.New("id token: the nonce is not this sign-in's"))
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return fail(fmt.Errorf("id token claims: %w", err))
	}
	id := Identity{Issuer: idt.Issuer, Subject: idt.Subject}
	id.Email, _ = claims["email"].(string)
	id.Name, _ = claims["name"].(string)
	switch v := claims["email_verified"].(type) {
	case nil:
		id.EmailVerified = o.Config.TrustEmails && id.Email != ""
	case bool:
		id.EmailVerified = v
	case string: // some providers (older Cognito, ADFS) send "true"
		id.EmailVerified = v == "true"
	}
	id.Groups = groups(claims[o.Config.GroupsClaim])
	return id, nil
}

// groups reads a groups claim: a list of strings, or one string.
func groups(v any) []string {
	switch g := v.(type) {
	case string:
		return []string{g}
	case []any:
		var out []string
		for _, x := range g {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// ErrLinkFirst is the answer when the identity is new but its email belongs to a password account:
// the person proves they own that account by signing in to it, then links the sign-on.
var ErrLinkFirst = &fault.Error{Code: fault.Conflict,
	Message: "An account with this email already exists. Sign in with its password, then choose “Link single sign-on” on the Account page."}

// SignIn returns the account the identity signs in to, creating one for a new person. linkTo, when
// not 0, is the signed-in account asking to be linked: the identity's email must be verified and the
// same as the account's. The admin group (when configured) sets the administrator flag at every
// sign-in. Domains not allowed, unverified emails where they matter, and identities whose email
// belongs to a password account not yet linked are fault errors fit to show.
func (o *OIDC) SignIn(ctx context.Context, id Identity, linkTo int64) (db.User, error) {
	email := strings.TrimSpace(id.Email)
	if len(o.Config.AllowedDomains) > 0 {
		_, domain, _ := strings.Cut(strings.ToLower(email), "@")
		allowed := slices.ContainsFunc(o.Config.AllowedDomains, func(d string) bool { return strings.EqualFold(strings.TrimSpace(d), domain) })
		if !id.EmailVerified || !allowed {
			return db.User{}, &fault.Error{Code: fault.Forbidden,
				Message: fmt.Sprintf("The account %s may not sign in here: only verified addresses at %s may.", email, strings.Join(o.Config.AllowedDomains, ", "))}
		}
	}
	var u db.User
	var err error
	switch {
	case linkTo != 0:
		u, err = o.Store.UserByID(ctx, linkTo)
		if err != nil {
			return db.User{}, err
		}
		if !id.EmailVerified || !strings.EqualFold(email, u.Email) {
			return db.User{}, &fault.Error{Code: fault.Forbidden,
				Message: fmt.Sprintf("Only a single sign-on account with the verified email %s can be linked to this account.", u.Email)}
		}
		if err := o.Store.LinkIdentity(ctx, id.Issuer, id.Subject, u.ID, email); err != nil {
			return db.User{}, err
		}
	default:
		u, err = o.Store.UserByIdentity(ctx, id.Issuer, id.Subject)
		if errors.Is(err, db.ErrNotFound) {
			u, err = o.newAccount(ctx, id, email)
		}
		if err != nil {
			return db.User{}, err
		}
	}
	if o.Config.AdminGroup != "" {
		admin := slices.Contains(id.Groups, o.Config.AdminGroup)
		if admin != u.IsAdmin {
			if err := o.Store.SetAdmin(ctx, u.ID, admin); err != nil {
				return db.User{}, err
			}
			u.IsAdmin = admin
		}
	}
	return u, nil
}

// newAccount creates the account of a person signing in for the first time (no password: only
// single sign-on opens it) and links the identity to it.
func (o *OIDC) newAccount(ctx context.Context, id Identity, email string) (db.User, error) {
	email, err := NormaliseEmail(email)
	if err != nil {
		return db.User{}, &fault.Error{Code: fault.Forbidden, Message: "The sign-on provider gave no usable email address, which a Parley account needs."}
	}
	if _, err := o.Store.UserByEmail(ctx, email); err == nil {
		return db.User{}, ErrLinkFirst
	} else if !errors.Is(err, db.ErrNotFound) {
		return db.User{}, err
	}
	name := strings.TrimSpace(id.Name)
	if r := []rune(name); len(r) > maxNameLen {
		name = string(r[:maxNameLen])
	}
	if name == "" {
		name, _, _ = strings.Cut(email, "@")
	}
	u, err := o.Store.CreateUser(ctx, email, name, "")
	if errors.Is(err, db.ErrEmailTaken) {
		return db.User{}, ErrLinkFirst
	}
	if err != nil {
		return db.User{}, err
	}
	return u, o.Store.LinkIdentity(ctx, id.Issuer, id.Subject, u.ID, email)
}
