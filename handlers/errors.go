package handlers

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/fault"
	"parley/views"
)

// statusTable is the one table from error codes to HTTP statuses; read it through statusOf and
// codeOf, which never answer 0.
var statusTable = map[fault.Code]int{
	fault.Invalid:          http.StatusBadRequest,
	fault.Unauthorized:     http.StatusUnauthorized,
	fault.Forbidden:        http.StatusForbidden,
	fault.NotFound:         http.StatusNotFound,
	fault.NotAllowed:       http.StatusMethodNotAllowed,
	fault.Conflict:         http.StatusConflict,
	fault.TooLarge:         http.StatusRequestEntityTooLarge,
	fault.UnsupportedMedia: http.StatusUnsupportedMediaType,
	fault.Unprocessable:    http.StatusUnprocessableEntity,
	fault.RateLimited:      http.StatusTooManyRequests,
	fault.Unavailable:      http.StatusServiceUnavailable,
	fault.Internal:         http.StatusInternalServerError,
}

var codeTable = map[int]fault.Code{}

func init() {
	for code, status := range statusTable {
		codeTable[status] = code
	}
}

// statusOf is the HTTP status of an error code; a code missing from the table is a 500, never 0.
func statusOf(code fault.Code) int {
	if status, ok := statusTable[code]; ok {
		return status
	}
	return http.StatusInternalServerError
}

// codeOf is the error code of an HTTP status: the table's, else Invalid for another 4xx and
// Internal for anything else.
func codeOf(status int) fault.Code {
	if code, ok := codeTable[status]; ok {
		return code
	}
	if status >= 400 && status < 500 {
		return fault.Invalid
	}
	return fault.Internal
}

var errForbiddenCSRF = &fault.Error{Code: fault.Forbidden,
	Message: "This form has expired or did not come from Parley. Reload the page and try again."}

// apiError is the JSON error body under /api/: {"error": {"code": "...", "message": "...", "field":
// "..."}, "err_msg": "...", "err_code": 404}; err_msg and err_code (the HTTP status) are the keys
// Galaxy's clients read.
type apiError struct {
	Error struct {
		Code    fault.Code `json:"code"`
		Message string     `json:"message"`
		Field   string     `json:"field,omitempty"`
	} `json:"error"`
	ErrMsg  string `json:"err_msg"`
	ErrCode int    `json:"err_code"`
}

// apiErrorOf is the API's error body for f answered with HTTP status.
func apiErrorOf(f *fault.Error, status int) apiError {
	var body apiError
	body.Error.Code, body.Error.Message, body.Error.Field = f.Code, f.Message, f.Field
	body.ErrMsg, body.ErrCode = f.Message, status
	return body
}

// handleError is echo's one error handler: it maps any error to a status, logs server faults with
// their cause, and answers JSON under /api/ and an HTML page elsewhere. Causes are never shown.
func (a *app) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	f := classify(err)
	status := statusOf(f.Code)
	if status == http.StatusServiceUnavailable && c.Response().Header().Get("Retry-After") == "" {
		c.Response().Header().Set("Retry-After", "5")
	}
	if status >= 500 {
		a.log.ErrorContext(c.Request().Context(), "request failed", "error", err.Error(),
			"request_id", c.Response().Header().Get(echo.HeaderXRequestID))
	}
	if isFragment(c) {
		// An htmx fragment request: swap nothing (the page and what was typed stay) and let
		// app.js show the message.
		trigger, _ := json.Marshal(map[string]string{"parley:error": f.Message})
		c.Response().Header().Set("HX-Reswap", "none")
		c.Response().Header().Set("HX-Trigger", string(trigger))
	}
	var werr error
	switch {
	case c.Request().Method == http.MethodHead:
		werr = c.NoContent(status)
	case isAPI(c) || c.Request().Header.Get(echo.HeaderAccept) == echo.MIMEApplicationJSON:
		werr = c.JSON(status, apiErrorOf(f, status))
	default:
		werr = render(c, status, views.ErrorPage(page(c, titleOf(status), ""), status, titleOf(status), f.Message))
	}
	if werr != nil {
		a.log.ErrorContext(c.Request().Context(), "writing error response", "error", werr.Error())
		if !c.Response().Committed {
			_ = c.String(status, f.Message)
		}
	}
}

// classify turns any error into a *fault.Error fit to show: ours keep their code and message,
// echo's HTTP errors keep their status, anything else is a generic internal error.
func classify(err error) *fault.Error {
	if db.Unreachable(err) {
		return db.ErrUnreachable
	}
	if f := fault.As(err); f != nil {
		if _, known := statusTable[f.Code]; !known || f.Code == fault.Internal {
			return &fault.Error{Code: fault.Internal, Message: "Something went wrong on our side. Try again in a moment."}
		}
		return f
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		code := codeOf(he.Code)
		msg := http.StatusText(he.Code)
		switch he.Code {
		case http.StatusNotFound:
			msg = "There is nothing at this address."
		case http.StatusRequestEntityTooLarge:
			msg = "The request is too large."
		case http.StatusMethodNotAllowed:
			msg = "This address does not accept that method; the Allow header lists the ones it does."
		}
		return &fault.Error{Code: code, Message: msg}
	}
	return &fault.Error{Code: fault.Internal, Message: "Something went wrong on our side. Try again in a moment."}
}

func titleOf(status int) string {
	switch status {
	case http.StatusNotFound:
		return "Not found"
	case http.StatusForbidden:
		return "Not allowed"
	case http.StatusTooManyRequests:
		return "Slow down"
	case http.StatusMethodNotAllowed:
		return "Wrong method"
	default:
		return http.StatusText(status)
	}
}
