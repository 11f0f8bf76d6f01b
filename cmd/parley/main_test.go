package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestHelpListsEveryCommand(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {}} {
		var out bytes.Buffer
		if err := run(args, &out); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		for _, want := range []string{"parley serve", "parley migrate up", "parley migrate down", "parley migrate status"} {
			if !strings.Contains(out.String(), want) {
				t.Fatalf("%v: help lacks %q", args, want)
			}
		}
	}
}

func TestUnknownCommandFails(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"frobnicate"}, &out); err == nil || !strings.Contains(err.Error(), "frobnicate") {
		t.Fatalf("err = %v", err)
	}
}

func TestMigrateNeedsADirection(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	var out bytes.Buffer
	if err := run([]string{"migrate", "sideways"}, &out); err == nil || !strings.Contains(err.Error(), "up, down or status") {
		t.Fatalf("err = %v", err)
	}
}
