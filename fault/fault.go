// Package fault is Parley's one error type: an error carries a Code where it is first known, and the
// HTTP layer turns the code into a status in one table (handlers/errors.go). A foreign object is
// NotFound, exactly like a missing one, so no response reveals that it exists.
package fault

import (
	"errors"
	"fmt"
)

// Code classifies an error for the people and programs that receive it.
type Code string

// The codes, each with the HTTP status the error handler gives it.
const (
	Invalid          Code = "invalid"                // 400: the input is wrong; Message says how
	Unauthorized     Code = "unauthorized"           // 401: sign in first, or the credentials are wrong
	Forbidden        Code = "forbidden"              // 403: e.g. a missing CSRF token
	NotFound         Code = "not_found"              // 404: missing, or someone else's
	NotAllowed       Code = "method_not_allowed"     // 405: the address does not take this method (Allow lists those it does)
	Conflict         Code = "conflict"               // 409: the state changed meanwhile; Message gives the reason
	TooLarge         Code = "too_large"              // 413
	UnsupportedMedia Code = "unsupported_media_type" // 415: e.g. a JSON route sent something other than application/json
	Unprocessable    Code = "unprocessable"          // 422: a form value is refused; the form comes back with the reason beside it
	RateLimited      Code = "rate_limited"           // 429
	Unavailable      Code = "unavailable"            // 503: e.g. the database is unreachable; try again shortly
	Internal         Code = "internal"               // 500: Message is generic; the cause is logged, never shown
)

// Codes lists every Code, in the order above; the HTTP layer's status table covers each one.
var Codes = []Code{Invalid, Unauthorized, Forbidden, NotFound, NotAllowed, Conflict, TooLarge,
	UnsupportedMedia, Unprocessable, RateLimited, Unavailable, Internal}

// Error is an error with a Code, a Message fit to show a person, and an optional Field naming the
// form field at fault.
type Error struct {
	Code    Code
	Message string
	Field   string
	Err     error // the cause, for logs only
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an *Error with the code and a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Field returns an Invalid *Error that names the form field at fault.
func Field(field, message string) *Error {
	return &Error{Code: Invalid, Message: message, Field: field}
}

// CodeOf returns the code of the first *Error in err's chain, or Internal.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// As returns the first *Error in err's chain, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}
