package views

import "strconv"

// MaxFeedbackReason is the longest reason a rating may carry, in characters.
const MaxFeedbackReason = 500

func feedbackID(messageID int64) string { return "feedback-" + strconv.FormatInt(messageID, 10) }

func feedbackURL(exchangeID, messageID int64) string {
	return "/sessions/" + strconv.FormatInt(exchangeID, 10) + "/messages/" + strconv.FormatInt(messageID, 10) + "/feedback"
}
