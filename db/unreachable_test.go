package db_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	"github.com/lib/pq"

	"parley/db"
)

func TestUnreachableTellsConnectionErrorsFromFailedQueries(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", fmt.Errorf("db: x: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), true},
		{"bad connection", fmt.Errorf("db: x: %w", driver.ErrBadConn), true},
		{"admin shutdown 57P01", &pq.Error{Code: "57P01"}, true},
		{"shutting down 57P03", &pq.Error{Code: "57P03"}, true},
		{"connection failure 08006", &pq.Error{Code: "08006"}, true},
		{"too many connections 53300", &pq.Error{Code: "53300"}, true},
		{"unique violation", &pq.Error{Code: "23505"}, false},
		{"syntax error", &pq.Error{Code: "42601"}, false},
		{"not found", db.ErrNotFound, false},
		{"nil", nil, false},
		{"other", errors.New("something else"), false},
	}
	for _, c := range cases {
		if got := db.Unreachable(c.err); got != c.want {
			t.Errorf("%s: Unreachable = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestUnreachableRecognisesAStoppedServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	store, err := db.Open(context.Background(), "postgres://parley@"+addr+"/parley?sslmode=disable")
	if err == nil {
		store.Close()
		t.Fatal("Open succeeded on a closed port")
	}
	if !db.Unreachable(err) {
		t.Fatalf("Unreachable(%v) = false", err)
	}
}
