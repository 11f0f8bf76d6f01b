package views

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// csrfHeader is the hx-headers value that makes every htmx request carry the CSRF token.
func csrfHeader(token string) string {
	b, _ := json.Marshal(map[string]string{"X-CSRF-Token": token})
	return string(b)
}

// initial is the first letter of a name, for avatars.
func initial(name string) string {
	r, _ := utf8.DecodeRuneInString(strings.TrimSpace(name))
	if r == utf8.RuneError {
		return "?"
	}
	return string(r)
}

// statusText is an HTTP status as digits.
func statusText(status int) string { return strconv.Itoa(status) }

// htmxConfig is htmx's configuration: no inline indicator styles, eval or script tags (the CSP
// forbids them), error responses swapped in like successes, because the server renders a useful
// page or fragment for them (a form with its messages, a 404 page), and no history cache: htmx
// would keep snapshots of private pages in the tab's sessionStorage and show them on Back after
// sign-out without asking the server; Back reloads the page from the server instead.
const htmxConfig = `{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,` +
	`"historyCacheSize":0,"refreshOnHistoryMiss":true,` +
	`"responseHandling":[{"code":"204","swap":false},{"code":"[2345]..","swap":true}]}`

// historyID is the HTML id of a conversation's sidebar item.
func historyID(exchangeID int64) string { return "history-" + strconv.FormatInt(exchangeID, 10) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// isImageAvatar reports whether an avatar is an uploaded image (validated data:image URL).
func isImageAvatar(avatar string) bool { return strings.HasPrefix(avatar, "data:image/") }

// AvatarPath is where an uploaded avatar image (a data:image URL) is served: /avatars/ and the
// SHA-256 of the data URL in hex, so pages link it (cached for good) instead of inlining it.
func AvatarPath(avatar string) string {
	sum := sha256.Sum256([]byte(avatar))
	return "/avatars/" + hex.EncodeToString(sum[:])
}

// avatarText is the avatar for the text field: empty for an uploaded image.
func avatarText(avatar string) string {
	if isImageAvatar(avatar) {
		return ""
	}
	return avatar
}

// accentSwatch is the colour class of a theme accent's swatch.
func accentSwatch(accent string) string {
	switch accent {
	case "emerald":
		return "bg-emerald-600"
	case "rose":
		return "bg-rose-600"
	case "amber":
		return "bg-amber-600"
	case "sky":
		return "bg-sky-600"
	case "violet":
		return "bg-violet-600"
	case "slate":
		return "bg-slate-700"
	}
	return "bg-indigo-600"
}

// historyURL is a conversation's URL or action URL: /sessions/{id}{suffix}.
func historyURL(exchangeID int64, suffix string) string {
	return "/sessions/" + strconv.FormatInt(exchangeID, 10) + suffix
}

// idsOf spells ids as strings, as form values.
func idsOf(ids []int64) []string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return s
}

// joinSections lists the sections a revision touched: "Methods · Results".
func joinSections(titles []string) string { return strings.Join(titles, " · ") }

// restoreURL is where the toast's Undo posts.
func (u Undo) restoreURL() string {
	if u.RestoreURL != "" {
		return u.RestoreURL
	}
	return "/history/restore"
}

// undoJSON is the hx-vals of the Undo toast's restore: {"ids": ["1", "2"], "open": "1"}.
func undoJSON(u Undo) string {
	vals := map[string]any{"ids": idsOf(u.IDs)}
	if u.Open != 0 {
		vals["open"] = strconv.FormatInt(u.Open, 10)
	}
	b, _ := json.Marshal(vals)
	return string(b)
}

// messageURL is a message's action URL: /sessions/{id}/messages/{mid}{suffix}.
func messageURL(exchangeID, messageID int64, suffix string) string {
	return historyURL(exchangeID, "/messages/"+strconv.FormatInt(messageID, 10)+suffix)
}

// toJSON is the hx-vals of a version switch: {"to": "42"}.
func toJSON(to int64) string { return `{"to":"` + strconv.FormatInt(to, 10) + `"}` }

// iconHref is the address of one symbol of the icon sprite, e.g. "/static/vendor/icons.svg?v=…#copy".
func iconHref(name string) string { return Asset("vendor/icons.svg") + "#" + name }
