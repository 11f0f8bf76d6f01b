package config

import (
	"strings"
	"testing"
	"time"
)

func TestBadValueNamesItsVariable(t *testing.T) {
	cases := []struct{ env, value, want string }{
		{"PARLEY_SESSION_TTL", "soon", "PARLEY_SESSION_TTL"},
		{"PARLEY_MAX_BODY_BYTES", "lots", "PARLEY_MAX_BODY_BYTES"},
		{"PARLEY_TRUST_PROXY", "maybe", "PARLEY_TRUST_PROXY"},
		{"PARLEY_DB_PREPARED", "maybe", "PARLEY_DB_PREPARED"},
		{"PARLEY_LOG_LEVEL", "loud", "PARLEY_LOG_LEVEL"},
		{"PARLEY_SESSION_KEY", "c2hvcnQ=", "PARLEY_SESSION_KEY"},
		{"PARLEY_PUBLIC_URL", "ftp://x", "PARLEY_PUBLIC_URL"},
		{"PARLEY_SEARCH_TIMEOUT", "quick", "PARLEY_SEARCH_TIMEOUT"},
		{"PARLEY_SEARCH_TIMEOUT", "1ms", "PARLEY_SEARCH_TIMEOUT"},
		{"PARLEY_SEARCH_TIMEOUT", "2h", "PARLEY_SEARCH_TIMEOUT"},
		{"PARLEY_ANTHROPIC_THINKING_BUDGET", "-5", "PARLEY_ANTHROPIC_THINKING_BUDGET"},
		{"PARLEY_ANTHROPIC_THINKING_BUDGET", "500", "PARLEY_ANTHROPIC_THINKING_BUDGET"},
		{"PARLEY_ANTHROPIC_THINKING_BUDGET", "lots", "PARLEY_ANTHROPIC_THINKING_BUDGET"},
		{"PARLEY_HISTORY_TOKENS", "-1", "PARLEY_HISTORY_TOKENS"},
		{"PARLEY_HISTORY_TOKENS", "many", "PARLEY_HISTORY_TOKENS"},
		{"PARLEY_HISTORY_TOKENS", "9223372036854775807", "PARLEY_HISTORY_TOKENS"},
		{"PARLEY_IMAGE_HOSTS", "https://images.example.com", "PARLEY_IMAGE_HOSTS"},
		{"PARLEY_IMAGE_HOSTS", "*.example.com", "PARLEY_IMAGE_HOSTS"},
		{"PARLEY_IMAGE_HOSTS", "images.example.com/path", "PARLEY_IMAGE_HOSTS"},
		{"PARLEY_IMAGE_HOSTS", "a.example b.example", "PARLEY_IMAGE_HOSTS"},
		{"PARLEY_LEASE_TIMEOUT", "500ms", "PARLEY_LEASE_TIMEOUT"},
		{"PARLEY_LEASE_TIMEOUT", "often", "PARLEY_LEASE_TIMEOUT"},
		{"PARLEY_STREAM_HEARTBEAT", "often", "PARLEY_STREAM_HEARTBEAT"},
		{"PARLEY_STREAM_HEARTBEAT", "1ms", "PARLEY_STREAM_HEARTBEAT"},
		{"PARLEY_STREAM_HEARTBEAT", "1h", "PARLEY_STREAM_HEARTBEAT"},
	}
	for _, c := range cases {
		t.Run(c.env+"="+c.value, func(t *testing.T) {
			t.Setenv("DATABASE_URL", "postgres://localhost/x")
			t.Setenv(c.env, c.value)
			_, err := Load()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load() error = %v, want one naming %s", err, c.want)
			}
			if strings.Contains(err.Error(), c.value) && c.env == "PARLEY_SESSION_KEY" {
				t.Fatalf("error leaks the secret value: %v", err)
			}
		})
	}
}

func TestDefaultsLoadWithADatabaseURL(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://localhost/x")
	cfg, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "localhost:8080" || cfg.Secure() || cfg.LeaseTimeout != 10*time.Second || !cfg.DBPrepared {
		t.Fatalf("defaults: addr %q secure %v", cfg.Addr, cfg.Secure())
	}
}

func TestMissingDatabaseURLIsExplained(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	if _, err := Load(); err == nil || !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Fatalf("err = %v", err)
	}
}

// PARLEY_IMAGE_HOSTS is a comma-separated list of host names, trimmed and lower-cased.
func TestImageHostsAreTrimmedAndLowerCased(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://localhost/x")
	t.Setenv("PARLEY_IMAGE_HOSTS", " Images.Example.com, cdn.example.org:8443 ,")
	cfg, err := Load()
	if err != nil || strings.Join(cfg.ImageHosts, "|") != "images.example.com|cdn.example.org:8443" {
		t.Fatalf("ImageHosts %q, err %v", cfg.ImageHosts, err)
	}
}

func TestOIDCSettingsAreChecked(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"PARLEY_PASSWORD_SIGNIN": "false"}, "PARLEY_PASSWORD_SIGNIN=false needs PARLEY_OIDC_ISSUER"},
		{map[string]string{"PARLEY_OIDC_ISSUER": "not a url"}, "PARLEY_OIDC_ISSUER must be"},
		{map[string]string{"PARLEY_OIDC_ISSUER": "https://id.example.com"}, "PARLEY_OIDC_CLIENT_ID must be set"},
		{map[string]string{"PARLEY_OIDC_ISSUER": "https://id.example.com", "PARLEY_OIDC_CLIENT_ID": "parley",
			"PARLEY_OIDC_ALLOWED_DOMAINS": "example.com,@bad"}, "PARLEY_OIDC_ALLOWED_DOMAINS must be"},
		{map[string]string{"PARLEY_IMPORT_MAX_BYTES": "10"}, "PARLEY_IMPORT_MAX_BYTES must be at least 1024"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			t.Setenv("DATABASE_URL", "postgres://localhost/x")
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			if _, err := Load(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load() error = %v, want %q", err, c.want)
			}
		})
	}
	t.Setenv("DATABASE_URL", "postgres://localhost/x")
	t.Setenv("PARLEY_OIDC_ISSUER", "https://id.example.com/realms/acme")
	t.Setenv("PARLEY_OIDC_CLIENT_ID", "parley")
	t.Setenv("PARLEY_OIDC_ALLOWED_DOMAINS", "example.com,example.org")
	t.Setenv("PARLEY_PASSWORD_SIGNIN", "false")
	cfg, err := Load()
	if err != nil || !cfg.OIDC() || len(cfg.OIDCAllowedDomains) != 2 || cfg.PasswordSignIn {
		t.Fatalf("%+v %v", cfg, err)
	}
}
