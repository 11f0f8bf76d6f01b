package db

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"
	"strings"
	"syscall"

	"github.com/lib/pq"

	"parley/fault"
)

// ErrUnreachable is what a request gets while PostgreSQL cannot be reached (the HTTP layer answers
// 503 with Retry-After).
var ErrUnreachable = &fault.Error{Code: fault.Unavailable,
	Message: "Parley cannot reach its database; what you typed is kept. Try again in a moment."}

// Unreachable reports whether err says PostgreSQL cannot be reached or is not accepting work right
// now (down, restarting, shutting down, connection lost), as opposed to a query that failed. It is
// the one place that classifies connection errors: lib/pq's SQLSTATE classes 08 (connection
// exception) and 57P01–57P03 (admin/crash shutdown, cannot connect now) and 53300 (too many
// connections), driver.ErrBadConn, sql.ErrConnDone, network errors and lost connections.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		code := string(pqErr.Code)
		return strings.HasPrefix(code, "08") || code == "57P01" || code == "57P02" || code == "57P03" || code == "53300"
	}
	var opErr *net.OpError
	switch {
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.As(err, &opErr):
		return true
	}
	msg := err.Error()
	for _, s := range []string{"connection refused", "the database system is shutting down",
		"the database system is starting up", "bad connection", "broken pipe", "connection reset", "pq: unexpected EOF"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
