package agents

import (
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// wireText is a JSON string decoded byte for byte: unlike encoding/json, which turns invalid UTF-8
// into U+FFFD, it keeps raw bytes, because some servers (llama.cpp) cut a character's bytes across
// two deltas and the assembler joins them again. null decodes as "".
type wireText string

var errBadJSONString = errors.New("agents: malformed JSON string")

// UnmarshalJSON implements json.Unmarshaler. encoding/json has already checked that b is one JSON
// value; escapes are \" \\ \/ \b \f \n \r \t and \uXXXX (surrogate pairs joined, a lone
// surrogate becoming U+FFFD, as encoding/json does).
func (t *wireText) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = ""
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return errBadJSONString
	}
	b = b[1 : len(b)-1]
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			out = append(out, b[i])
			continue
		}
		i++
		if i >= len(b) {
			return errBadJSONString
		}
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, n, err := unicodeEscape(b[i-1:])
			if err != nil {
				return err
			}
			out = utf8.AppendRune(out, r)
			i += n - 2
		default:
			return errBadJSONString
		}
	}
	*t = wireText(out)
	return nil
}

// unicodeEscape decodes the \uXXXX escape at the start of b (and a \uXXXX low surrogate right
// after a high one), returning the rune and the number of bytes used.
func unicodeEscape(b []byte) (rune, int, error) {
	hex := func(b []byte) (rune, bool) {
		if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(b[2:6]), 16, 16)
		return rune(v), err == nil
	}
	r, ok := hex(b)
	if !ok {
		return 0, 0, errBadJSONString
	}
	if utf16.IsSurrogate(r) {
		if low, ok := hex(b[6:]); ok {
			if joined := utf16.DecodeRune(r, low); joined != utf8.RuneError {
				return joined, 12, nil
			}
		}
		return utf8.RuneError, 6, nil
	}
	return r, 6, nil
}
