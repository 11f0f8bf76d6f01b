package db

import "testing"

// Every DSN form gets binary_parameters (one round trip per statement) unless it sets it itself.
func TestOpenSendsStatementsInOneRoundTrip(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://u:p@h:5432/parley?sslmode=disable": "postgres://u:p@h:5432/parley?binary_parameters=yes&sslmode=disable",
		"postgresql://h/parley":                        "postgresql://h/parley?binary_parameters=yes",
		"host=h dbname=parley sslmode=disable":         "host=h dbname=parley sslmode=disable binary_parameters=yes",
		"postgres://h/parley?binary_parameters=no":     "postgres://h/parley?binary_parameters=no",
		"host=h binary_parameters=no":                  "host=h binary_parameters=no",
	} {
		if got := oneRoundTrip(dsn); got != want {
			t.Errorf("oneRoundTrip(%q) = %q, want %q", dsn, got, want)
		}
	}
}
