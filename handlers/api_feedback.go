package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/fault"
)

var errFeedbackValue = fault.Field("feedback", "Feedback should be 1 (thumbs up), 0 (thumbs down) or null (withdraw), "+
	`as a bare value or as {"feedback": 1, "reason": "…"}.`)

// feedbackBody is the body of a feedback PUT: Galaxy's bare 0 or 1, null to withdraw, or an object
// {"feedback": 0|1|null, "reason": "…"} (a reason of at most 500 characters; without one the
// stored reason stays while the rating does).
type feedbackBody struct {
	rating string // "up", "down" or "" (withdraw)
	reason *string
}

func readFeedback(c echo.Context) (feedbackBody, error) {
	var raw json.RawMessage
	if _, err := readJSON(c, &raw, false); err != nil {
		return feedbackBody{}, err
	}
	var fb feedbackBody
	value := raw
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
		var obj struct {
			Feedback json.RawMessage `json:"feedback"`
			Reason   *string         `json:"reason"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return fb, jsonError(err)
		}
		if obj.Feedback == nil {
			return fb, errFeedbackValue
		}
		if obj.Reason != nil {
			r, err := checkReason(*obj.Reason)
			if err != nil {
				return fb, err
			}
			fb.reason = &r
		}
		value = obj.Feedback
	}
	switch string(bytes.TrimSpace(value)) {
	case "1":
		fb.rating = db.RatingUp
	case "0":
		fb.rating = db.RatingDown
	case "null":
	default:
		return fb, errFeedbackValue
	}
	return fb, nil
}

// feedbackSaved is a feedback PUT's answer: Galaxy's {"message", "feedback"} plus the message.
type feedbackSaved struct {
	Message    string `json:"message"`
	Feedback   *int   `json:"feedback"`
	Reason     string `json:"reason"`
	MessageID  int64  `json:"message_id"`
	ExchangeID int64  `json:"exchange_id"`
}

func (a *app) saveFeedback(c echo.Context, exchangeID, messageID int64, fb feedbackBody) error {
	a.generator.WaitStored(c.Request().Context(), exchangeID) // an answer shown finished may still be on its way to the database
	m, err := a.store.SetFeedback(c.Request().Context(), db.Owner{UserID: viewer(c).ID}, exchangeID, messageID, fb.rating, fb.reason)
	if err != nil {
		return err
	}
	a.notifier.Publish(exchangeID, m.ID) // open chat pages show the rating
	out := feedbackSaved{Message: "Feedback saved", Feedback: feedbackInt(m.Feedback), Reason: m.FeedbackReason, MessageID: m.ID, ExchangeID: exchangeID}
	if m.Feedback == nil {
		out.Message = "Feedback withdrawn"
	}
	return c.JSON(http.StatusOK, out)
}

// apiMessageFeedback is PUT /api/chat/exchange/{id}/messages/{message_id}/feedback: rates one
// answer of the caller's exchange (404 for anything else, 409 while it is being written).
func (a *app) apiMessageFeedback(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	mid, err := pathID(c, "message_id")
	if err != nil {
		return err
	}
	if _, err := a.store.OwnerExchange(c.Request().Context(), db.Owner{UserID: viewer(c).ID}, id); err != nil {
		return err // ownership before the body: someone else's exchange is 404 whatever is sent
	}
	fb, err := readFeedback(c)
	if err != nil {
		return err
	}
	return a.saveFeedback(c, id, mid, fb)
}

// apiExchangeFeedback is Galaxy's PUT /api/chat/exchange/{id}/feedback: it rates the exchange's
// latest answer (Galaxy rated the first row whatever was clicked).
func (a *app) apiExchangeFeedback(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	latest, err := a.store.LatestAnswer(c.Request().Context(), viewer(c).ID, id)
	if err != nil {
		return err
	}
	fb, err := readFeedback(c)
	if err != nil {
		return err
	}
	return a.saveFeedback(c, id, latest.ID, fb)
}
