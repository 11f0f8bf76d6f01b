package handlers

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strconv"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/fault"
)

// unlockCookie remembers, for this browser, the password-protected agents it has unlocked.
const unlockCookie = "parley_unlock"

// unlockTTL is how long a right password is remembered.
const unlockTTL = 12 * 60 * 60

var (
	errAgentUnavailable = &fault.Error{Code: fault.Conflict, Message: "This agent is disabled or deleted; it cannot answer."}
	errAgentLocked      = &fault.Error{Code: fault.Forbidden, Message: "This agent is password protected. Enter its password first."}
)

// mayManage reports whether the signed-in user may change the agent (its owner, or an admin).
func mayManage(u *db.User, ag db.Agent) bool {
	return u != nil && (u.IsAdmin || ag.OwnerID != nil && *ag.OwnerID == u.ID)
}

// checkAgentAccess says whether this request may chat with the agent: a private agent is
// ErrNotFound to everyone but its owner and admins; a password-protected one is errAgentLocked
// until its password was entered in this browser (its owner and admins pass).
func (a *app) checkAgentAccess(c echo.Context, ag db.Agent) error {
	u := viewer(c)
	if ag.Visibility != "public" && !mayManage(u, ag) {
		return db.ErrNotFound
	}
	if ag.PasswordHash != nil && !mayManage(u, ag) && !a.unlocked(c, ag) {
		return errAgentLocked
	}
	return nil
}

// teamMayHold says whether the user may put the agent in a team (as db.setMembers): their own, any
// for an admin, or a public agent without a password.
func teamMayHold(ag db.Agent, u *db.User) bool {
	return mayManage(u, ag) || ag.Visibility == "public" && ag.PasswordHash == nil
}

// usableMembers are the team members this request may chat with: enabled, not deleted, and
// passing checkAgentAccess (private, password) for the person chatting, in order.
func (a *app) usableMembers(c echo.Context, members []db.Agent) []db.Agent {
	var out []db.Agent
	for _, m := range members {
		if m.DisabledAt == nil && m.DeletedAt == nil && a.checkAgentAccess(c, m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// errBadPin refuses a select_agent that is not a member this person may chat with.
var errBadPin = fault.Field("select_agent", "That team member cannot answer here (it is not in the team, disabled, private or locked). Pick another member or Auto.")

// pinnedAgent is the member the person pinned (form select_agent; "" or "0" is Auto, 0) among the
// usable members; anything else is errBadPin.
func pinnedAgent(c echo.Context, usable []db.Agent) (int64, error) {
	v := c.FormValue("select_agent")
	if v == "" || v == "0" {
		return 0, nil
	}
	id, err := strconv.ParseInt(v, 10, 64)
	for _, m := range usable {
		if err == nil && m.ID == id {
			return id, nil
		}
	}
	return 0, errBadPin
}

// passwordStamp identifies the agent's current password, so changing it locks the agent again.
func passwordStamp(ag db.Agent) string {
	if ag.PasswordHash == nil {
		return ""
	}
	sum := sha256.Sum256([]byte(*ag.PasswordHash))
	return hex.EncodeToString(sum[:8])
}

func unlockKey(ag db.Agent) string { return "a" + strconv.FormatInt(ag.ID, 10) }

// unlocked reports whether this browser entered the agent's current password.
func (a *app) unlocked(c echo.Context, ag db.Agent) bool {
	sess, _ := a.cookies.Get(c.Request(), unlockCookie)
	got, _ := sess.Values[unlockKey(ag)].(string)
	want := passwordStamp(ag)
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// rememberUnlock stores the agent's password stamp in the (signed, encrypted) unlock cookie, which
// is set like the guest cookie so it also works inside the embedded widget.
func (a *app) rememberUnlock(c echo.Context, ag db.Agent) error {
	sess, _ := a.cookies.Get(c.Request(), unlockCookie)
	if len(sess.Values) > 50 { // bound the cookie's size
		sess.Values = map[any]any{}
	}
	sess.Values[unlockKey(ag)] = passwordStamp(ag)
	opts := &sessions.Options{Path: "/", MaxAge: unlockTTL, HttpOnly: true, SameSite: http.SameSiteLaxMode}
	if a.cfg.Secure() {
		opts.Secure, opts.SameSite, opts.Partitioned = true, http.SameSiteNoneMode, true
	}
	sess.Options = opts
	return sess.Save(c.Request(), c.Response())
}
