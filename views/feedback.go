package views

import "strconv"

// MaxFeedbackReason is the longest reason a rating may carry, in characters.
const MaxFeedbackReason = 500

func feedbackID(messageID int64) string { return "feedback-" + strconv.FormatInt(messageID, 10) }
