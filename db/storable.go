package db

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// storable is s as PostgreSQL's text type accepts it: NUL characters removed and bytes that are
// not UTF-8 replaced by U+FFFD. Text a model wrote (answers, reasoning, tool calls, titles) goes
// through it, because one NUL ("\u0000" in the model's JSON) would fail the write and lose the
// whole answer.
func storable(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// storableJSON is b as jsonb accepts it: strings without the NUL character ("\u0000", which jsonb
// refuses) and with U+FFFD for bytes that are not UTF-8. b is returned as it is when it has
// neither; numbers are kept as written; JSON that does not parse is returned unchanged, for
// PostgreSQL to refuse.
func storableJSON(b json.RawMessage) json.RawMessage {
	if utf8.Valid(b) && !bytes.Contains(b, []byte(`\u0000`)) {
		return b
	}
	// UseNumber keeps numbers as written: through float64 an integer past 2^53 would change.
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || len(bytes.TrimSpace(b[d.InputOffset():])) > 0 {
		return b
	}
	out, err := json.Marshal(storableValue(v))
	if err != nil {
		return b
	}
	return out
}

func storableValue(v any) any {
	switch v := v.(type) {
	case string:
		return storable(v)
	case []any:
		for i := range v {
			v[i] = storableValue(v[i])
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[storable(k)] = storableValue(e)
		}
		return out
	}
	return v
}

// storableAll applies storable to each of ss in place.
func storableAll(ss ...[]string) {
	for _, s := range ss {
		for i := range s {
			s[i] = storable(s[i])
		}
	}
}
