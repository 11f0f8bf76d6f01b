// Package config reads Parley's settings from the environment. Every setting has a default that
// works on a developer's machine; a value that cannot be parsed stops start-up with an error naming
// its variable. Secrets (keys, passwords) are never part of an error message or a log line.
package config

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
)

// Config is the whole of Parley's configuration. Field tags name the environment variables.
type Config struct {
	// DatabaseURL is a lib/pq connection string, e.g. postgres://user@host:5432/db?sslmode=disable.
	DatabaseURL string `env:"DATABASE_URL"`
	// Addr is the host:port the HTTP server listens on.
	Addr string `env:"PARLEY_ADDR" envDefault:"localhost:8080"`
	// PublicURL is the address people use to reach Parley; an https URL marks cookies Secure.
	PublicURL string `env:"PARLEY_PUBLIC_URL" envDefault:"http://localhost:8080"`
	// SessionKey signs and encrypts session cookies: 32 or 64 random bytes, base64 (std or URL
	// alphabet). Empty means a key generated once and kept in the database.
	SessionKey string `env:"PARLEY_SESSION_KEY"`
	// SessionTTL is how long a sign-in lasts without use.
	SessionTTL time.Duration `env:"PARLEY_SESSION_TTL" envDefault:"720h"`
	// TrustProxy makes the client IP come from X-Forwarded-For (set it only behind a proxy you run).
	TrustProxy bool `env:"PARLEY_TRUST_PROXY" envDefault:"false"`
	// ImageHosts are the hosts (e.g. images.example.com, or host:port) whose images messages and
	// pages may load; an image from any other origin is shown as a link naming its host. Comma
	// separated; empty loads none. The CSP's img-src lists the same hosts.
	ImageHosts []string `env:"PARLEY_IMAGE_HOSTS" envSeparator:","`
	// MaxBodyBytes bounds every request body.
	MaxBodyBytes int64 `env:"PARLEY_MAX_BODY_BYTES" envDefault:"1048576"`
	// SignInRate is how many sign-in attempts one IP, and separately one account, may make per minute.
	SignInRate int `env:"PARLEY_SIGNIN_PER_MINUTE" envDefault:"10"`
	// LogLevel is debug, info, warn or error.
	LogLevel string `env:"PARLEY_LOG_LEVEL" envDefault:"info"`
	// LogFormat is text or json.
	LogFormat string `env:"PARLEY_LOG_FORMAT" envDefault:"text"`
	// MaxQueryChars is the longest chat message accepted, in characters.
	MaxQueryChars int `env:"PARLEY_MAX_QUERY_CHARS" envDefault:"8000"`
	// MessagesPerMinute is how many chat messages one person may send per minute.
	MessagesPerMinute int `env:"PARLEY_MESSAGES_PER_MINUTE" envDefault:"20"`
	// GuestMessagesPerMinute is how many chat messages guests may send per minute from one IP
	// (stricter than MessagesPerMinute, which bounds it).
	GuestMessagesPerMinute int `env:"PARLEY_GUEST_MESSAGES_PER_MINUTE" envDefault:"6"`
	// AnswerTimeout bounds the generation of one answer, tool calls included.
	AnswerTimeout time.Duration `env:"PARLEY_ANSWER_TIMEOUT" envDefault:"5m"`
	// SearchTimeout bounds one search statement (history search, the search_workspace tool):
	// PostgreSQL stops a longer one and the person is told to narrow the search.
	SearchTimeout time.Duration `env:"PARLEY_SEARCH_TIMEOUT" envDefault:"2s"`
	// Provider picks the model provider: offline, openai or anthropic. Empty chooses openai when
	// PARLEY_OPENAI_BASE_URL or PARLEY_OPENAI_API_KEY is set, anthropic when
	// PARLEY_ANTHROPIC_API_KEY is set, and the offline agent otherwise.
	Provider string `env:"PARLEY_PROVIDER"`
	// ImproveTitles lets the model retitle a conversation after its first answer (never with the
	// offline agent); the title cut from the first query stays until then.
	ImproveTitles bool `env:"PARLEY_IMPROVE_TITLES" envDefault:"true"`
	// OfflineDelay is the offline agent's pause between streamed words.
	OfflineDelay time.Duration `env:"PARLEY_OFFLINE_DELAY" envDefault:"30ms"`
	// OpenAI-compatible servers (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, DeepSeek).
	OpenAIBaseURL string `env:"PARLEY_OPENAI_BASE_URL"`
	OpenAIAPIKey  string `env:"PARLEY_OPENAI_API_KEY"`
	OpenAIModel   string `env:"PARLEY_OPENAI_MODEL"`
	// Anthropic's Messages API.
	AnthropicBaseURL string `env:"PARLEY_ANTHROPIC_BASE_URL"`
	AnthropicAPIKey  string `env:"PARLEY_ANTHROPIC_API_KEY"`
	AnthropicModel   string `env:"PARLEY_ANTHROPIC_MODEL"`
	// AnthropicThinkingBudget is the tokens of extended thinking Claude may spend on an answer of
	// an agent whose reasoning capability is on (at least 1024, Anthropic's minimum).
	AnthropicThinkingBudget int `env:"PARLEY_ANTHROPIC_THINKING_BUDGET" envDefault:"2048"`
	// HistoryTokens bounds the earlier questions and answers a turn sends the model, in estimated
	// tokens (4 bytes of text each); the first question and the current one always go. 0 sends
	// them all (up to 1,000 messages). Raise it for models with long context windows.
	HistoryTokens int `env:"PARLEY_HISTORY_TOKENS" envDefault:"6000"`
	// UpstreamFirstByteTimeout is how long a model may take, from the request, to send the first
	// byte of its answer (a local server may be loading the model) before the answer fails.
	UpstreamFirstByteTimeout time.Duration `env:"PARLEY_UPSTREAM_FIRST_BYTE_TIMEOUT" envDefault:"60s"`
	// UpstreamIdleTimeout is the longest silence of a model once its answer started streaming.
	UpstreamIdleTimeout time.Duration `env:"PARLEY_UPSTREAM_IDLE_TIMEOUT" envDefault:"30s"`
	// MaxStreams bounds the open SSE streams of this instance; one more is answered 503.
	MaxStreams int `env:"PARLEY_MAX_STREAMS" envDefault:"10000"`
	// MaxStreamsPerPerson bounds the open SSE streams of one account (or one guest) on this
	// instance; one more is answered 503.
	MaxStreamsPerPerson int `env:"PARLEY_MAX_STREAMS_PER_PERSON" envDefault:"32"`
	// StreamHeartbeat is how often an idle SSE stream sends a comment line, so proxies and load
	// balancers do not close it for idleness (keep it under their read timeout; nginx: 60 s).
	StreamHeartbeat time.Duration `env:"PARLEY_STREAM_HEARTBEAT" envDefault:"15s"`
	// ShutdownTimeout bounds the graceful shutdown.
	ShutdownTimeout time.Duration `env:"PARLEY_SHUTDOWN_TIMEOUT" envDefault:"15s"`
	// ListenDatabaseURL is the DSN the change listener (LISTEN) connects with; empty uses
	// DatabaseURL. Behind a transaction-pooling proxy (PgBouncer pool_mode=transaction), point it at
	// PostgreSQL itself or a session-pooled port: LISTEN needs a connection of its own.
	ListenDatabaseURL string `env:"PARLEY_LISTEN_DATABASE_URL"`
	// DBPrepared runs the statements of a chat turn as named prepared statements, parsed and
	// planned once per connection. Set it false behind a pooler that cannot keep them (PgBouncer in
	// transaction mode before 1.21, or without max_prepared_statements).
	DBPrepared bool `env:"PARLEY_DB_PREPARED" envDefault:"true"`
	// LeaseTimeout is how long an answer stays claimed by the instance generating it without a
	// heartbeat (renewed every fifth of it); after that any instance marks it interrupted. 0 means
	// chat.DefaultLease (10 s).
	LeaseTimeout time.Duration `env:"PARLEY_LEASE_TIMEOUT" envDefault:"10s"`
	// ImportMaxBytes bounds an uploaded export (Account → Import), in bytes (default 512 MiB).
	ImportMaxBytes int64 `env:"PARLEY_IMPORT_MAX_BYTES" envDefault:"536870912"`
	// OpenID Connect sign-in (handlers/auth_oidc.go): on when OIDCIssuer is set. The provider
	// redirects back to PublicURL + /auth/oidc/callback.
	OIDCIssuer       string `env:"PARLEY_OIDC_ISSUER"`
	OIDCClientID     string `env:"PARLEY_OIDC_CLIENT_ID"`
	OIDCClientSecret string `env:"PARLEY_OIDC_CLIENT_SECRET"`
	// OIDCName is the provider's name on the sign-in button ("Sign in with …").
	OIDCName string `env:"PARLEY_OIDC_NAME" envDefault:"single sign-on"`
	// OIDCScopes are the scopes asked for; openid is always among them.
	OIDCScopes []string `env:"PARLEY_OIDC_SCOPES" envDefault:"openid,email,profile" envSeparator:","`
	// OIDCAllowedDomains, when not empty, are the only email domains that may sign in (e.g.
	// example.com); the provider must say the email is verified.
	OIDCAllowedDomains []string `env:"PARLEY_OIDC_ALLOWED_DOMAINS" envSeparator:","`
	// OIDCAdminGroup, when set, makes a person whose ID token lists it in OIDCGroupsClaim an
	// administrator at each sign-in (and no longer one when it is gone).
	OIDCAdminGroup  string `env:"PARLEY_OIDC_ADMIN_GROUP"`
	OIDCGroupsClaim string `env:"PARLEY_OIDC_GROUPS_CLAIM" envDefault:"groups"`
	// OIDCTrustEmails treats the email of an ID token without an email_verified claim as verified
	// (Microsoft Entra sends none; its tenant's administrators set the addresses).
	OIDCTrustEmails bool `env:"PARLEY_OIDC_TRUST_EMAILS" envDefault:"false"`
	// PasswordSignIn false hides the password form and refuses password sign-in and sign-up (then
	// OIDCIssuer must be set); guests of public agents are not affected.
	PasswordSignIn bool `env:"PARLEY_PASSWORD_SIGNIN" envDefault:"true"`
}

// Load parses the environment into a Config and validates it. Errors name the variable at fault.
func Load() (Config, error) {
	cfg, err := env.ParseAs[Config]()
	if err != nil {
		return Config{}, describe(err)
	}
	var hosts []string
	for _, h := range cfg.ImageHosts {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			hosts = append(hosts, h)
		}
	}
	cfg.ImageHosts = hosts
	return cfg, cfg.Validate()
}

// Validate checks values that parse but make no sense.
func (c Config) Validate() error {
	if c.DatabaseURL == "" {
		return errors.New("DATABASE_URL is not set (make run starts a private PostgreSQL and sets it for you)")
	}
	if _, err := url.Parse(c.PublicURL); err != nil || !strings.HasPrefix(c.PublicURL, "http") {
		return errors.New("PARLEY_PUBLIC_URL must be an http:// or https:// URL")
	}
	if c.SessionKey != "" {
		if _, err := c.SessionKeyBytes(); err != nil {
			return err
		}
	}
	if c.SessionTTL < time.Minute {
		return errors.New("PARLEY_SESSION_TTL must be at least 1m")
	}
	if c.MaxBodyBytes < 1024 {
		return errors.New("PARLEY_MAX_BODY_BYTES must be at least 1024")
	}
	for _, h := range c.ImageHosts {
		if !imageHost.MatchString(h) {
			return errors.New("PARLEY_IMAGE_HOSTS must list host names (or host:port), comma separated, e.g. images.example.com,cdn.example.org")
		}
	}
	if c.SignInRate < 1 {
		return errors.New("PARLEY_SIGNIN_PER_MINUTE must be at least 1")
	}
	if c.MaxQueryChars < 1 {
		return errors.New("PARLEY_MAX_QUERY_CHARS must be at least 1")
	}
	if c.MessagesPerMinute < 1 {
		return errors.New("PARLEY_MESSAGES_PER_MINUTE must be at least 1")
	}
	if c.AnswerTimeout < time.Second {
		return errors.New("PARLEY_ANSWER_TIMEOUT must be at least 1s")
	}
	if c.SearchTimeout < 10*time.Millisecond || c.SearchTimeout > time.Minute {
		return errors.New("PARLEY_SEARCH_TIMEOUT must be between 10ms and 1m")
	}
	if c.AnthropicThinkingBudget != 0 && c.AnthropicThinkingBudget < 1024 { // 0: the provider's default
		return errors.New("PARLEY_ANTHROPIC_THINKING_BUDGET must be at least 1024 tokens (Anthropic's minimum)")
	}
	if c.HistoryTokens < 0 || c.HistoryTokens > maxHistoryTokens {
		return fmt.Errorf("PARLEY_HISTORY_TOKENS must be between 0 (no bound) and %d", maxHistoryTokens)
	}
	if c.LeaseTimeout != 0 && c.LeaseTimeout < time.Second {
		return errors.New("PARLEY_LEASE_TIMEOUT must be at least 1s")
	}
	if c.OfflineDelay < 0 {
		return errors.New("PARLEY_OFFLINE_DELAY must not be negative")
	}
	if c.UpstreamFirstByteTimeout < 100*time.Millisecond {
		return errors.New("PARLEY_UPSTREAM_FIRST_BYTE_TIMEOUT must be at least 100ms (e.g. 60s)")
	}
	if c.UpstreamIdleTimeout < 100*time.Millisecond {
		return errors.New("PARLEY_UPSTREAM_IDLE_TIMEOUT must be at least 100ms (e.g. 30s)")
	}
	if c.MaxStreams < 1 {
		return errors.New("PARLEY_MAX_STREAMS must be at least 1")
	}
	if c.MaxStreamsPerPerson < 1 || c.MaxStreamsPerPerson > c.MaxStreams {
		return errors.New("PARLEY_MAX_STREAMS_PER_PERSON must be at least 1 and at most PARLEY_MAX_STREAMS")
	}
	if c.StreamHeartbeat < 50*time.Millisecond || c.StreamHeartbeat > 10*time.Minute {
		return errors.New("PARLEY_STREAM_HEARTBEAT must be between 50ms and 10m (e.g. 15s)")
	}
	switch c.ProviderKind() {
	case "offline", "openai", "anthropic":
	default:
		return errors.New("PARLEY_PROVIDER must be offline, openai or anthropic")
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return errors.New("PARLEY_LOG_LEVEL must be debug, info, warn or error")
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return errors.New("PARLEY_LOG_FORMAT must be text or json")
	}
	if c.ImportMaxBytes < 1024 {
		return errors.New("PARLEY_IMPORT_MAX_BYTES must be at least 1024")
	}
	return c.validateOIDC()
}

// OIDC reports whether OpenID Connect sign-in is configured.
func (c Config) OIDC() bool { return c.OIDCIssuer != "" }

func (c Config) validateOIDC() error {
	if !c.OIDC() {
		if !c.PasswordSignIn {
			return errors.New("PARLEY_PASSWORD_SIGNIN=false needs PARLEY_OIDC_ISSUER: otherwise nobody could sign in")
		}
		return nil
	}
	if u, err := url.Parse(c.OIDCIssuer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("PARLEY_OIDC_ISSUER must be the provider's https:// issuer URL")
	}
	if c.OIDCClientID == "" {
		return errors.New("PARLEY_OIDC_CLIENT_ID must be set with PARLEY_OIDC_ISSUER")
	}
	for _, d := range c.OIDCAllowedDomains {
		if d = strings.TrimSpace(d); d == "" || strings.ContainsAny(d, "@/ ") || !strings.Contains(d, ".") {
			return errors.New("PARLEY_OIDC_ALLOWED_DOMAINS must be a comma-separated list of domains like example.com")
		}
	}
	return nil
}

// imageHost matches one PARLEY_IMAGE_HOSTS entry: a DNS name or IPv4 address, maybe with a port;
// no scheme, path, wildcard or spaces.
var imageHost = regexp.MustCompile(`^(?i)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)*(?::[0-9]{1,5})?$`)

// ListenURL is the DSN of the change listener: ListenDatabaseURL, else DatabaseURL.
func (c Config) ListenURL() string {
	if c.ListenDatabaseURL != "" {
		return c.ListenDatabaseURL
	}
	return c.DatabaseURL
}

// SessionKeyBytes decodes SessionKey: 32 or 64 bytes in base64. The error never echoes the key.
func (c Config) SessionKeyBytes() ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(c.SessionKey); err == nil && (len(b) == 32 || len(b) == 64) {
			return b, nil
		}
	}
	return nil, errors.New("PARLEY_SESSION_KEY must be 32 or 64 random bytes in base64 (try: openssl rand -base64 32)")
}

// ProviderKind is the model provider to use: PARLEY_PROVIDER, or a choice made from which
// provider's variables are set (see Provider).
func (c Config) ProviderKind() string {
	switch {
	case c.Provider != "":
		return strings.ToLower(strings.TrimSpace(c.Provider))
	case c.OpenAIBaseURL != "" || c.OpenAIAPIKey != "":
		return "openai"
	case c.AnthropicAPIKey != "":
		return "anthropic"
	}
	return "offline"
}

// Secure reports whether Parley is served over TLS, so cookies must be Secure.
func (c Config) Secure() bool { return strings.HasPrefix(c.PublicURL, "https://") }

// describe turns env's aggregate error into one line per variable, without values.
func describe(err error) error {
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return err
	}
	var lines []string
	for _, e := range agg.Errors {
		var pe env.ParseError
		if errors.As(e, &pe) {
			lines = append(lines, fmt.Sprintf("%s: cannot parse as %s", envName(pe.Name), pe.Type))
			continue
		}
		lines = append(lines, e.Error())
	}
	return errors.New(strings.Join(lines, "; "))
}

// envName maps a Config field name to its variable, read from the struct tag, for error messages.
func envName(field string) string {
	if f, ok := reflect.TypeFor[Config]().FieldByName(field); ok {
		if name, _, _ := strings.Cut(f.Tag.Get("env"), ","); name != "" {
			return name
		}
	}
	return field
}

// maxHistoryTokens bounds PARLEY_HISTORY_TOKENS: ten million tokens is more than any model's
// context, and its bytes (4 a token) still fit the SQL bound.
const maxHistoryTokens = 10_000_000
