package chat

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"parley/fault"
)

// CheckQuery validates a chat message: valid UTF-8, not empty or whitespace only, at most max
// characters (Unicode code points). Errors are *fault.Error (Invalid) with a message for the person.
func CheckQuery(q string, max int) error {
	switch {
	case !utf8.ValidString(q):
		return fault.Field("query", "Your message contains bytes that are not valid text (invalid UTF-8). Paste it again as plain text.")
	case strings.ContainsRune(q, 0):
		return fault.Field("query", "Your message contains a NUL character, which cannot be stored. Remove it and send again.")
	case strings.TrimFunc(q, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) }) == "":
		return fault.Field("query", "Type a message first.")
	}
	if n := utf8.RuneCountInString(q); n > max {
		return fault.Field("query", fmt.Sprintf("Your message is %d characters long; the limit is %d.", n, max))
	}
	return nil
}

// titleLen is the longest conversation title made from a first query, in characters.
const titleLen = 60

// TitleFrom makes a conversation title from its first query: whitespace collapsed, cut at a word
// boundary to about 60 characters with an ellipsis.
func TitleFrom(q string) string {
	s := strings.Join(strings.Fields(q), " ")
	if utf8.RuneCountInString(s) <= titleLen {
		return s
	}
	r := []rune(s)[:titleLen]
	cut := string(r)
	if i := strings.LastIndex(cut, " "); i > titleLen/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " .,;:") + "…"
}
