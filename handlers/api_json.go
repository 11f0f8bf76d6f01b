package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"parley/fault"
)

// readJSON reads the request body into v. A leading UTF-8 byte order mark is ignored. An empty body
// leaves v as it is when optional, and is refused otherwise; invalid UTF-8 and unpaired surrogate
// escapes (which encoding/json would silently replace with U+FFFD), bad JSON and wrong types are
// 400 with a plain sentence naming the field.
func readJSON(c echo.Context, v any, optional bool) (empty bool, err error) {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return false, err // the body limit answers 413 itself
	}
	body = bytes.TrimPrefix(body, []byte("\ufeff"))
	if len(bytes.TrimSpace(body)) == 0 {
		if optional {
			return true, nil
		}
		return true, fault.New(fault.Invalid, "The request needs a JSON body.")
	}
	if !isJSONMedia(c.Request().Header.Get(echo.HeaderContentType)) {
		return false, fault.New(fault.UnsupportedMedia, "Send the body as JSON, with the header Content-Type: application/json.")
	}
	if !utf8.Valid(body) {
		return false, fault.New(fault.Invalid, "The body is not valid UTF-8.")
	}
	if loneSurrogate(body) {
		return false, fault.New(fault.Invalid, "The body has a \\u escape of half a surrogate pair, which is not a character.")
	}
	return false, jsonError(json.Unmarshal(body, v))
}

// isJSONMedia reports whether a Content-Type header names JSON: application/json or a
// application/…+json type, any parameters (charset) allowed.
func isJSONMedia(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// jsonError turns encoding/json's error into a plain 400 naming the field; nil stays nil.
func jsonError(err error) error {
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return fault.Field(te.Field, te.Field+" must be "+jsonKind(te.Type.Kind().String())+".")
	case errors.As(err, &te):
		return fault.New(fault.Invalid, "The body must be %s in JSON, not %s.", jsonKind(te.Type.Kind().String()), jsonValueName(te.Value))
	case errors.As(err, &se):
		return fault.New(fault.Invalid, "The body is not valid JSON (near byte %d).", se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fault.New(fault.Invalid, "The body is not valid JSON: it ends too early.")
	}
	return fault.New(fault.Invalid, "The body is not valid JSON.")
}

// jsonValueName names the JSON kind encoding/json reports in an UnmarshalTypeError.
func jsonValueName(v string) string {
	switch v {
	case "array":
		return "an array"
	case "object":
		return "an object"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	}
	return "a number"
}

// loneSurrogate reports whether a JSON text has a \uD800–\uDFFF escape that is not half of a
// high-low pair. Backslashes only occur inside strings, and each escape is skipped whole.
func loneSurrogate(b []byte) bool {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
		return rune(n), err == nil
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		r, ok := hex4(i)
		if !ok {
			i++ // \\, \" and friends
			continue
		}
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			low, ok := hex4(i + 6)
			if !ok || low < 0xDC00 || low > 0xDFFF {
				return true
			}
			i += 11
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		default:
			i += 5
		}
	}
	return false
}

func jsonKind(goKind string) string {
	switch goKind {
	case "int", "int64", "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
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
