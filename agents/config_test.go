package agents_test

import (
	"strings"
	"testing"
	"time"

	"parley/agents"
)

func TestNewPicksTheProvider(t *testing.T) {
	cases := []struct {
		cfg         agents.Config
		name, model string
	}{
		{agents.Config{}, "offline", "offline"},
		{agents.Config{Kind: "offline", OfflineDelay: time.Millisecond}, "offline", "offline"},
		{agents.Config{Kind: "openai", BaseURL: "http://localhost:11434/v1", Model: "llama3.2"}, "openai", "llama3.2"},
		{agents.Config{Kind: "OpenAI", APIKey: testKey, Model: "gpt-4o-mini"}, "openai", "gpt-4o-mini"},
		{agents.Config{Kind: "anthropic", APIKey: testKey, Model: "claude-sonnet-4-5"}, "anthropic", "claude-sonnet-4-5"},
	}
	for _, c := range cases {
		p, err := agents.New(c.cfg)
		if err != nil {
			t.Errorf("New(%+v): %v", c.cfg.Kind, err)
			continue
		}
		if p.Name() != c.name || p.Model() != c.model {
			t.Errorf("New(%q) = %s/%s, want %s/%s", c.cfg.Kind, p.Name(), p.Model(), c.name, c.model)
		}
	}
}

func TestNewNamesTheVariableToFixAndHidesTheKey(t *testing.T) {
	cases := []struct {
		cfg  agents.Config
		want string
	}{
		{agents.Config{Kind: "openai", BaseURL: "localhost:11434", Model: "m"}, "PARLEY_OPENAI_BASE_URL"},
		{agents.Config{Kind: "openai", BaseURL: "ftp://example.com", Model: "m"}, "PARLEY_OPENAI_BASE_URL"},
		{agents.Config{Kind: "openai", Model: "gpt-4o-mini"}, "PARLEY_OPENAI_API_KEY"},
		{agents.Config{Kind: "openai", APIKey: testKey + "\n", Model: "m"}, "PARLEY_OPENAI_API_KEY"},
		{agents.Config{Kind: "openai", APIKey: testKey}, "PARLEY_OPENAI_MODEL"},
		{agents.Config{Kind: "anthropic", Model: "claude-sonnet-4-5"}, "PARLEY_ANTHROPIC_API_KEY"},
		{agents.Config{Kind: "anthropic", APIKey: "bad key " + testKey, Model: "c"}, "PARLEY_ANTHROPIC_API_KEY"},
		{agents.Config{Kind: "anthropic", APIKey: testKey}, "PARLEY_ANTHROPIC_MODEL"},
		{agents.Config{Kind: "anthropic", APIKey: testKey, Model: "c", BaseURL: "not a url"}, "PARLEY_ANTHROPIC_BASE_URL"},
		{agents.Config{Kind: "gemini"}, "unknown provider kind"},
		{agents.Config{OfflineDelay: -time.Second}, "delay"},
	}
	for _, c := range cases {
		_, err := agents.New(c.cfg)
		if err == nil {
			t.Errorf("New(%s, base %q, model %q) accepted a bad config", c.cfg.Kind, c.cfg.BaseURL, c.cfg.Model)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %q does not name %s", err, c.want)
		}
		if strings.Contains(err.Error(), testKey) {
			t.Errorf("error shows the key: %q", err)
		}
	}
}
