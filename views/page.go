// Package views renders Parley's HTML with templ. Views receive view models built by handlers,
// never database rows.
package views

import "parley/static"

// Viewer is the signed-in person as the layout shows them; nil when signed out.
type Viewer struct {
	Name    string
	Email   string
	IsAdmin bool
}

// Page is what the layout needs on every full page.
type Page struct {
	// Title goes before " · Parley" in the <title>.
	Title string
	// Section names the active header link: "chat", "pages", "agents" or "".
	Section string
	Viewer  *Viewer
	// CSRF is the token for forms and the X-CSRF-Token header of htmx requests.
	CSRF string
	// Bare leaves out the header (the embedded widget's minimal chrome).
	Bare bool
	// Widget, when set, is the floating chat button (an admin setting) shown on the page.
	Widget *Widget
	// SignOn, when set, is the OpenID Connect sign-in offered beside (or instead of) passwords.
	SignOn *SignOn
}

// Widget is the floating chat button: it opens a panel with the agent's widget (EmbedURL).
type Widget struct {
	Name, Avatar, EmbedURL string
	// Accent is the agent's theme colour ("" for the default indigo), as AgentView.Accent.
	Accent string
}

// Asset returns the versioned URL of a static file, e.g. Asset("css/app.css").
func Asset(name string) string { return static.URL(name) }
