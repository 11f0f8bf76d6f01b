package agents

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
)

// Provider kinds for Config.Kind.
const (
	ProviderOffline   = "offline"
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
)

// DefaultFirstByteTimeout is how long a model may take, from the request, to send the first byte
// of its answer before the answer is abandoned with an error of kind timeout. It is generous
// because a local server may first load the model from disk (Ollama, llama.cpp: seconds to tens of
// seconds) and a hosted one may queue the request or retry it.
const DefaultFirstByteTimeout = 60 * time.Second

// DefaultIdleTimeout is how long a model stream may stay silent once its body started (between
// two deltas, keep-alive comments included) before it is abandoned with an error of kind timeout.
// A streaming model sends tokens many times a second; servers that think before answering send
// reasoning or keep-alive comments meanwhile, so 30 s of silence means a stalled upstream.
const DefaultIdleTimeout = 30 * time.Second

// MinThinkingBudget is the smallest extended thinking budget Anthropic accepts, in tokens.
const MinThinkingBudget = 1024

// Config picks and configures a provider; the cmd layer fills it from PARLEY_* variables.
//
//   - Kind: "offline" (also when empty), "openai" or "anthropic".
//   - BaseURL: openai: PARLEY_OPENAI_BASE_URL, default DefaultOpenAIBaseURL (for Ollama
//     http://localhost:11434/v1); anthropic: PARLEY_ANTHROPIC_BASE_URL, default the Anthropic API.
//   - APIKey: PARLEY_OPENAI_API_KEY (needed for api.openai.com; optional for local servers) or
//     PARLEY_ANTHROPIC_API_KEY (required). Never logged, never put in an error.
//   - Model: PARLEY_OPENAI_MODEL or PARLEY_ANTHROPIC_MODEL, required for those kinds.
//   - OfflineDelay: pause between streamed words of the offline provider; 0 in tests.
//   - FirstByteTimeout: see DefaultFirstByteTimeout (used when 0).
//   - IdleTimeout: see DefaultIdleTimeout (used when 0).
//   - ThinkingBudget: anthropic: PARLEY_ANTHROPIC_THINKING_BUDGET, the tokens of extended thinking
//     when an agent with the reasoning capability asks (Request.Think); DefaultThinkingBudget when
//     0, at least 1,024 (Anthropic's minimum) otherwise.
//   - HTTPClient: optional; nil uses streamClient (http.DefaultTransport with a 64 KiB read buffer).
type Config struct {
	Kind             string
	BaseURL          string
	APIKey           string
	Model            string
	OfflineDelay     time.Duration
	FirstByteTimeout time.Duration
	IdleTimeout      time.Duration
	ThinkingBudget   int
	HTTPClient       *http.Client
}

// New builds the provider cfg names. Its errors name the environment variable to fix and never
// contain the API key.
func New(cfg Config) (Provider, error) {
	kind := strings.ToLower(strings.TrimSpace(cfg.Kind))
	switch kind {
	case "", ProviderOffline:
		if cfg.OfflineDelay < 0 {
			return nil, errors.New("agents: the offline word delay must not be negative")
		}
		return NewOffline(cfg.OfflineDelay), nil
	case ProviderOpenAI:
		base, err := baseURL(cfg.BaseURL, DefaultOpenAIBaseURL, "PARLEY_OPENAI_BASE_URL", "http://localhost:11434/v1")
		if err != nil {
			return nil, err
		}
		if err := checkKey(cfg.APIKey, "PARLEY_OPENAI_API_KEY"); err != nil {
			return nil, err
		}
		if cfg.APIKey == "" && base.Host == "api.openai.com" {
			return nil, errors.New("agents: PARLEY_OPENAI_API_KEY is required for api.openai.com (or set PARLEY_OPENAI_BASE_URL to a local server such as http://localhost:11434/v1)")
		}
		if strings.TrimSpace(cfg.Model) == "" {
			return nil, errors.New("agents: PARLEY_OPENAI_MODEL is required: the model id the server serves, e.g. gpt-4o-mini or llama3.2")
		}
		cfg.Model = strings.TrimSpace(cfg.Model)
		return newOpenAI(cfg, base), nil
	case ProviderAnthropic:
		base, err := baseURL(cfg.BaseURL, DefaultAnthropicBaseURL, "PARLEY_ANTHROPIC_BASE_URL", DefaultAnthropicBaseURL)
		if err != nil {
			return nil, err
		}
		if cfg.APIKey == "" {
			return nil, errors.New("agents: PARLEY_ANTHROPIC_API_KEY is required for the Anthropic provider")
		}
		if err := checkKey(cfg.APIKey, "PARLEY_ANTHROPIC_API_KEY"); err != nil {
			return nil, err
		}
		if strings.TrimSpace(cfg.Model) == "" {
			return nil, errors.New("agents: PARLEY_ANTHROPIC_MODEL is required, e.g. claude-sonnet-4-5")
		}
		if cfg.ThinkingBudget != 0 && cfg.ThinkingBudget < MinThinkingBudget {
			return nil, fmt.Errorf("agents: PARLEY_ANTHROPIC_THINKING_BUDGET must be at least %d tokens (Anthropic's minimum), got %d", MinThinkingBudget, cfg.ThinkingBudget)
		}
		cfg.Model = strings.TrimSpace(cfg.Model)
		return newAnthropic(cfg, base), nil
	}
	return nil, fmt.Errorf("agents: unknown provider kind %q: want offline, openai or anthropic", cfg.Kind)
}

// baseURL parses raw (or fallback when raw is empty) as an absolute http(s) URL.
func baseURL(raw, fallback, env, example string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		raw = fallback
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("agents: %s must be an http(s) URL such as %s", env, example)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("agents: %s must not have a query or fragment (got %s)", env, u.Redacted())
	}
	return u, nil
}

// checkKey refuses keys that would corrupt the request header, without echoing them.
func checkKey(key, env string) error {
	if strings.IndexFunc(key, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return fmt.Errorf("agents: %s contains spaces or control characters; set it to the key alone", env)
	}
	return nil
}

// idleLimit is cfg's silence limits, with the defaults for those left 0.
func idleLimit(cfg Config) silenceLimits {
	l := silenceLimits{FirstByte: cfg.FirstByteTimeout, Idle: cfg.IdleTimeout}
	if l.FirstByte <= 0 {
		l.FirstByte = DefaultFirstByteTimeout
	}
	if l.Idle <= 0 {
		l.Idle = DefaultIdleTimeout
	}
	return l
}
