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
// surrogate becoming U+FFFD, as encoding/json does). The exception is a pair that a server cut
// between two deltas (a proxy that slices UTF-16 strings): a high surrogate ending the string, or
// a low one starting it, is kept as its three-byte (WTF-8) encoding, which is not UTF-8, so the
// assembler joins the halves (wholeRunes) or makes each U+FFFD.
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
			at, end := i-1, i-1+n
			switch {
			case !utf16.IsSurrogate(r):
				out = utf8.AppendRune(out, r)
			case r < 0xDC00 && end == len(b), r >= 0xDC00 && at == 0:
				out = appendSurrogate(out, r)
			default:
				out = utf8.AppendRune(out, utf8.RuneError)
			}
			i += n - 2
		default:
			return errBadJSONString
		}
	}
	*t = wireText(out)
	return nil
}

// appendSurrogate appends the surrogate code point r in the three-byte form UTF-8 would give it
// (WTF-8), which utf8 rejects: ED A0–AF xx for a high surrogate, ED B0–BF xx for a low one.
func appendSurrogate(out []byte, r rune) []byte {
	return append(out, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}

// unicodeEscape decodes the \uXXXX escape at the start of b (and a \uXXXX low surrogate right
// after a high one), returning the rune and the number of bytes used. A surrogate that is not
// half of a pair is returned as it is (6 bytes used).
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
		return r, 6, nil
	}
	return r, 6, nil
}
