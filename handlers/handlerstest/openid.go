package handlerstest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"parley/config"
)

// OpenIDProvider is a small OpenID Connect provider on loopback, standing in for Keycloak or
// Google: discovery, JWKS, an authorization endpoint that signs in whoever is set as the person at
// the keyboard (SignInAs), and a token endpoint that checks the client secret, the redirect URI,
// the one-use code and its PKCE S256 verifier, and returns an RS256-signed ID token.
type OpenIDProvider struct {
	URL                    string
	ClientID, ClientSecret string
	// RedirectURI is the only callback accepted (Parley's PublicURL + /auth/oidc/callback).
	RedirectURI string

	key *rsa.PrivateKey
	mu  sync.Mutex
	// person signs in at the next authorization; grants are the codes issued.
	person Person
	grants map[string]grant
	tamper func(claims map[string]any)
}

// Person is who signs in at the provider, as its ID token tells.
type Person struct {
	Subject, Email, Name string
	EmailVerified        bool
	// NoEmailVerified leaves the email_verified claim out, as Microsoft Entra does.
	NoEmailVerified bool
	Groups          []string
}

type grant struct {
	person                        Person
	nonce, challenge, redirectURI string
}

// StartOpenIDProvider runs a provider for the test, with Parley (at PublicURL
// http://127.0.0.1) registered as client "parley".
func StartOpenIDProvider(t testing.TB) *OpenIDProvider {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &OpenIDProvider{ClientID: "parley", ClientSecret: "s3cret-for-tests", key: key, grants: map[string]grant{},
		RedirectURI: "http://127.0.0.1/auth/oidc/callback"}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// WithOpenIDProvider configures Parley to sign in through p.
func WithOpenIDProvider(p *OpenIDProvider) func(*config.Config) {
	return func(c *config.Config) {
		c.OIDCIssuer, c.OIDCClientID, c.OIDCClientSecret = p.URL, p.ClientID, p.ClientSecret
		c.OIDCName, c.OIDCScopes, c.OIDCGroupsClaim = "Test IdP", []string{"openid", "email", "profile"}, "groups"
	}
}

// SignInAs sets the person who signs in at the next authorization.
func (p *OpenIDProvider) SignInAs(person Person) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.person = person
}

// Tamper changes the claims of the ID tokens issued from now on (nil: none), e.g. a wrong nonce
// or an expiry in the past.
func (p *OpenIDProvider) Tamper(fn func(claims map[string]any)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tamper = fn
}

func (p *OpenIDProvider) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer": p.URL, "authorization_endpoint": p.URL + "/authorize", "token_endpoint": p.URL + "/token",
		"jwks_uri": p.URL + "/jwks", "response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"},
		"scopes_supported": []string{"openid", "email", "profile"}, "token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
	})
}

func (p *OpenIDProvider) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &p.key.PublicKey, KeyID: "test-key", Algorithm: "RS256", Use: "sig"}}})
}

// authorize signs the current person in and redirects to the client with a code (errors go back
// as error=… like a real provider's, or as 400 for a bad client or redirect URI).
func (p *OpenIDProvider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("client_id") != p.ClientID || q.Get("redirect_uri") != p.RedirectURI {
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(p.RedirectURI)
	v := url.Values{"state": {q.Get("state")}}
	switch {
	case q.Get("response_type") != "code":
		v.Set("error", "unsupported_response_type")
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		v.Set("error", "invalid_request")
		v.Set("error_description", "PKCE S256 is required")
	default:
		code := randomString()
		p.mu.Lock()
		p.grants[code] = grant{person: p.person, nonce: q.Get("nonce"), challenge: q.Get("code_challenge"), redirectURI: q.Get("redirect_uri")}
		p.mu.Unlock()
		v.Set("code", code)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (p *OpenIDProvider) token(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
	}
	if id != p.ClientID || secret != p.ClientSecret {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	p.mu.Lock()
	g, found := p.grants[r.PostFormValue("code")]
	delete(p.grants, r.PostFormValue("code")) // one use
	tamper := p.tamper
	p.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
	switch {
	case r.PostFormValue("grant_type") != "authorization_code" || !found || r.PostFormValue("redirect_uri") != g.redirectURI:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
		return
	case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "PKCE verifier mismatch"})
		return
	}
	now := time.Now()
	claims := map[string]any{"iss": p.URL, "sub": g.person.Subject, "aud": p.ClientID, "iat": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(), "nonce": g.nonce, "email": g.person.Email,
		"email_verified": g.person.EmailVerified, "name": g.person.Name}
	if g.person.NoEmailVerified { // like Microsoft Entra
		delete(claims, "email_verified")
	}
	if g.person.Groups != nil {
		claims["groups"] = g.person.Groups
	}
	if tamper != nil {
		tamper(claims)
	}
	payload, _ := json.Marshal(claims)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: p.key, KeyID: "test-key"}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	idToken, _ := jws.CompactSerialize()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": randomString(), "token_type": "Bearer", "expires_in": 300, "id_token": idToken})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func randomString() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
