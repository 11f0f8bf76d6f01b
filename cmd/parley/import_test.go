package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"parley/db"
	"parley/db/dbtest"
)

func TestImportCommandImportsIntoTheNamedAccountOnce(t *testing.T) {
	url := dbtest.URL(t)
	t.Setenv("DATABASE_URL", url)
	t.Setenv("PARLEY_LOG_LEVEL", "error")
	store, err := db.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.CreateUser(context.Background(), "ada@example.com", "Ada", ""); err != nil {
		t.Fatal(err)
	}
	const file = "../../imports/testdata/chatgpt-conversations.json"
	var out bytes.Buffer
	if err := run([]string{"import", "--user", "ada@example.com", file}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "ChatGPT export: imported 2 conversation(s) with 11 message(s) into ada@example.com; 0 were already there") {
		t.Fatalf("output %q", out.String())
	}
	out.Reset()
	if err := run([]string{"import", "--user", "ada@example.com", file}, &out); err != nil || !strings.Contains(out.String(), "imported 0 conversation(s) with 0 message(s) into ada@example.com; 2 were already there") {
		t.Fatalf("again: %q %v", out.String(), err)
	}
	if err := run([]string{"import", "--user", "nobody@example.com", file}, &out); err == nil || !strings.Contains(err.Error(), "no account has the email nobody@example.com") {
		t.Fatalf("unknown account: %v", err)
	}
	if err := run([]string{"import", "--user", "ada@example.com", "../../imports/testdata/foreign.json"}, &out); err == nil || !strings.Contains(err.Error(), "not from ChatGPT") {
		t.Fatalf("foreign file: %v", err)
	}
	if err := run([]string{"import", file}, &out); err == nil || !strings.Contains(err.Error(), "usage: parley import --user EMAIL FILE") {
		t.Fatalf("no user: %v", err)
	}
}
