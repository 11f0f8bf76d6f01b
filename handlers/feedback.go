package handlers

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/fault"
	"parley/views"
)

// submitFeedback rates an answer from a chat page (a user's, or a guest's on an agent page): rating "up" or "down", or "none" to withdraw;
// reason, when sent, replaces the stored reason. htmx requests get the control back.
func (a *app) submitFeedback(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	mid, err := pathID(c, "mid")
	if err != nil {
		return err
	}
	if _, err := a.store.OwnerExchange(c.Request().Context(), chatOwner(c), id); err != nil {
		return err // ownership before the form: someone else's conversation is 404 whatever is sent
	}
	rating, err := parseRating(c.FormValue("rating"))
	if err != nil {
		return err
	}
	var reason *string
	if _, sent := c.Request().Form["reason"]; sent {
		r, err := checkReason(c.FormValue("reason"))
		if err != nil {
			return err
		}
		reason = &r
	}
	a.generator.WaitStored(c.Request().Context(), id) // an answer shown finished may still be on its way to the database
	m, err := a.store.SetFeedback(c.Request().Context(), chatOwner(c), id, mid, rating, reason)
	if err != nil {
		return err
	}
	a.notifier.Publish(id, mid) // other tabs showing the conversation show the rating too
	if !isFragment(c) {
		return c.Redirect(http.StatusSeeOther, sessionURL(id)+"#"+views.MessageElementID(mid))
	}
	return render(c, http.StatusOK, views.FeedbackControl(messageView(m, nil), id))
}

// parseRating reads a form rating: "up", "down", or "none" (withdraw, returned as "").
func parseRating(s string) (string, error) {
	switch s {
	case db.RatingUp, db.RatingDown:
		return s, nil
	case "none":
		return "", nil
	}
	return "", fault.Field("rating", `rating must be "up", "down" or "none".`)
}

// checkReason trims a feedback reason and checks it is valid text of at most MaxFeedbackReason
// characters.
func checkReason(s string) (string, error) {
	switch {
	case !utf8.ValidString(s) || strings.ContainsRune(s, 0):
		return "", fault.Field("reason", "The reason must be plain text (valid UTF-8, no NUL).")
	case utf8.RuneCountInString(s) > views.MaxFeedbackReason:
		return "", fault.Field("reason", "The reason may be at most "+strconv.Itoa(views.MaxFeedbackReason)+" characters.")
	}
	return strings.TrimSpace(s), nil
}

// feedbackBatch is how many rated answers an export reads per query.
const feedbackBatch = 500

// exportFeedback downloads every rating of every account, newest first, as CSV or JSON (format
// "csv" or "json"): message and exchange ids, user id, agent, agent type, rating, reason, time,
// the answer and the question it answered. Administrators only; anyone else gets 404. Rows are
// read in keyset batches and written as they come, so the export's memory does not grow with it.
func (a *app) exportFeedback(format string) echo.HandlerFunc {
	return func(c echo.Context) error {
		if u := viewer(c); u == nil || !u.IsAdmin {
			return db.ErrNotFound
		}
		ctx := c.Request().Context()
		w := c.Response()
		name := "parley-feedback-" + time.Now().UTC().Format("20060102-150405") + "." + format
		w.Header().Set(echo.HeaderContentDisposition, `attachment; filename="`+name+`"`)
		w.Header().Set("Cache-Control", "no-store")
		var write func(db.FeedbackRow) error
		var done func() error
		if format == "csv" {
			w.Header().Set(echo.HeaderContentType, "text/csv; charset=utf-8")
			if _, err := w.Write([]byte("\ufeff")); err != nil { // a BOM, so Excel reads UTF-8
				return err
			}
			cw := csv.NewWriter(w)
			if err := cw.Write([]string{"message_id", "exchange_id", "user_id", "agent", "agent_type", "rating", "reason", "time", "message", "query"}); err != nil {
				return err
			}
			write = func(r db.FeedbackRow) error {
				user := ""
				if r.UserID != nil {
					user = strconv.FormatInt(*r.UserID, 10)
				}
				return cw.Write([]string{strconv.FormatInt(r.MessageID, 10), strconv.FormatInt(r.ExchangeID, 10), user,
					csvCell(r.Agent), r.AgentType, r.Rating, csvCell(r.Reason), r.At.UTC().Format(time.RFC3339), csvCell(r.Message), csvCell(r.Query)})
			}
			done = func() error { cw.Flush(); return cw.Error() }
		} else {
			w.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSONCharsetUTF8)
			enc := json.NewEncoder(w)
			first := true
			if _, err := w.Write([]byte("[")); err != nil {
				return err
			}
			write = func(r db.FeedbackRow) error {
				if !first {
					if _, err := w.Write([]byte(",")); err != nil {
						return err
					}
				}
				first = false
				return enc.Encode(r)
			}
			done = func() error { _, err := w.Write([]byte("]\n")); return err }
		}
		var after *db.FeedbackCursor
		for {
			rows, err := a.store.AllFeedback(ctx, after, feedbackBatch)
			if err != nil {
				return err
			}
			for _, r := range rows {
				if err := write(r); err != nil {
					return err
				}
			}
			if len(rows) < feedbackBatch {
				return done()
			}
			last := rows[len(rows)-1]
			after = &db.FeedbackCursor{At: last.At, MessageID: last.MessageID}
		}
	}
}

// csvCell defuses text that a spreadsheet would run as a formula (=, +, -, @, tab or CR first,
// also behind leading spaces, other blanks or a BOM, which spreadsheets skip) by prefixing a single
// quote.
func csvCell(s string) string {
	rest := strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) && r != '\t' && r != '\r' || r == '\ufeff' })
	if rest != "" && strings.ContainsRune("=+-@\t\r", rune(rest[0])) {
		return "'" + s
	}
	return s
}
