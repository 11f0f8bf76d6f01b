package handlers

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/fault"
	"parley/views"
)

// searchLimit bounds the conversations one sidebar search lists.
const searchLimit = 30

// showSearch answers the sidebar's search box: the viewer's conversations (general chats and chats
// about their pages) whose title or messages match ?q, with highlighted snippets, each opening at its matching message: the best searchLimit,
// saying when more match. An empty box answers nothing (the list shows again).
func (a *app) showSearch(c echo.Context) error {
	q := strings.TrimSpace(c.QueryParam("q"))
	if q == "" {
		return c.HTML(http.StatusOK, "")
	}
	if !utf8.ValidString(q) || strings.ContainsRune(q, 0) {
		return fault.Field("q", "The search contains bytes that are not valid text.")
	}
	if utf8.RuneCountInString(q) > 200 {
		return fault.Field("q", "A search has at most 200 characters.")
	}
	hits, err := a.store.SearchConversations(c.Request().Context(), viewer(c).ID, q, searchLimit+1)
	if err != nil {
		return err
	}
	more := len(hits) > searchLimit
	hits = hits[:min(len(hits), searchLimit)]
	out := make([]views.SearchResultView, len(hits))
	for i, h := range hits {
		out[i] = views.SearchResultView{URL: hitURL(h), Title: parts(displayTitle(h.Title)), Snippet: parts(h.Snippet), At: h.At}
		if h.PageID != 0 {
			out[i].Page = pageTitle(h.PageTitle)
		}
	}
	return render(c, http.StatusOK, views.SearchResults(q, out, more))
}

// hitURL opens a hit's conversation at its matching message: a general chat on its own page, a
// chat about a page in that page's editor.
func hitURL(h db.ConversationHit) string {
	url := sessionURL(h.ExchangeID)
	sep := "?"
	if h.PageID != 0 {
		url, sep = fmt.Sprintf("%s?chat=%d", editURL(h.PageID), h.ExchangeID), "&"
	}
	if h.MessageID != 0 {
		url += fmt.Sprintf("%sm=%d#message-%d", sep, h.MessageID, h.MessageID)
	}
	return url
}

// markup is the Markdown punctuation left out of snippets, which show plain text.
var markup = strings.NewReplacer("**", "", "__", "", "`", "", "#", "", "\n", " ")

// mdLink is a Markdown link or image, maybe cut off at either end of the snippet (its "[" or its
// ")" missing): only its text shows.
var mdLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)\s]*\)?|\]\([^)\s]*\)?`)

// parts cuts a highlighted title or snippet into view parts, without Markdown punctuation (links
// show their text only).
func parts(s string) []views.TextPart {
	s = mdLink.ReplaceAllString(s, "$1")
	var out []views.TextPart
	db.SplitHighlights(s, func(text string, match bool) {
		text = markup.Replace(text)
		out = append(out, views.TextPart{Text: text, Match: match})
	})
	return out
}
