package handlers

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"parley/fault"
)

// readJSON reads the request body into v. An empty body leaves v as it is when optional, and is
// refused otherwise; invalid UTF-8 (which encoding/json would silently replace), bad JSON and
// wrong types are 400 with the field named.
func readJSON(c echo.Context, v any, optional bool) (empty bool, err error) {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return false, err // the body limit answers 413 itself
	}
	if len(body) == 0 {
		if optional {
			return true, nil
		}
		return true, fault.New(fault.Invalid, "The request needs a JSON body.")
	}
	if !utf8.Valid(body) {
		return false, fault.New(fault.Invalid, "The body is not valid UTF-8.")
	}
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return false, fault.Field(te.Field, te.Field+" must be "+jsonKind(te.Type.Kind().String())+".")
		}
		return false, fault.New(fault.Invalid, "The body is not valid JSON of the expected shape: %v", err)
	}
	return false, nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "int", "int64", "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	case "slice":
		return "an array"
	}
	return "of another type"
}

// apiLimit reads the ?limit= of a list: default 50, 1 to 200.
func apiLimit(c echo.Context) (int, error) {
	s := c.QueryParam("limit")
	if s == "" {
		return 50, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 200 {
		return 0, fault.Field("limit", "limit must be a whole number from 1 to 200.")
	}
	return n, nil
}
