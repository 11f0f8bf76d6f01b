package views

import "time"

// AccountPage is the account settings page: API keys (with a key just created, shown once) and,
// for administrators, the feedback export.
type AccountPage struct {
	Page
	Keys []APIKeyView
	// NewKey is the key just created, shown this once; NewKeyName is its name.
	NewKey, NewKeyName string
	// Name and NameError are the create form's text and its error.
	Name, NameError string
	// SignOnLinked is true when the account signs in through the OpenID Connect provider.
	SignOnLinked bool
}

// APIKeyView is one API key as listed: never the key, only its first characters.
type APIKeyView struct {
	ID         int64
	Name       string
	Prefix     string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	Revoked    bool
}
