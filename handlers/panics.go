package handlers

import (
	"fmt"
	"net/http"
	"runtime/debug"

	"github.com/labstack/echo/v4"

	"parley/fault"
)

// recoverPanics turns a handler's panic into the error handler's 500 page or JSON body, logging the
// panic and its stack. A panic while writing the status (an invalid code) leaves the response
// uncommitted, so the 500 still goes out; when the status line was already sent, the connection is
// cut (http.ErrAbortHandler) rather than ending a half-written answer as if it were whole.
func (a *app) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if r == http.ErrAbortHandler {
				panic(r)
			}
			a.log.ErrorContext(c.Request().Context(), "handler panicked", "panic", fmt.Sprint(r),
				"stack", string(debug.Stack()), "request_id", c.Response().Header().Get(echo.HeaderXRequestID))
			if c.Response().Committed {
				panic(http.ErrAbortHandler)
			}
			err = &fault.Error{Code: fault.Internal, Message: "panic", Err: fmt.Errorf("panic: %v", r)}
		}()
		return next(c)
	}
}
