package agents

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	_ "image/gif"  // avatar decoding
	_ "image/jpeg" // avatar decoding
	_ "image/png"  // avatar decoding
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
	_ "golang.org/x/image/webp" // avatar decoding

	"parley/db"
	"parley/fault"
)

// Agent types a person may give an agent (SPEC.md §2): a general-purpose assistant, a router
// that answers or hands off, or a page assistant.
var AgentTypes = []string{"general", "router", "page_assistant"}

// Accents are the theme colours an agent may carry ("" is the default indigo).
var Accents = []string{"indigo", "emerald", "rose", "amber", "sky", "violet", "slate"}

// Limits of an agent's settings.
const (
	MaxAvatarImageBytes = 64 << 10 // an uploaded avatar image, before base64
	maxNameRunes        = 80
	maxDescriptionRunes = 500
	maxPromptRunes      = 20000
	maxWelcomeRunes     = 2000
	maxModelLen         = 200
	maxModels           = 10
	maxEmbedOrigins     = 20
	minAgentPassword    = 4
	maxAgentPassword    = 72
)

// originHost is an embed origin's host[:port]: a DNS name or IPv4 address and an optional port.
var originHost = regexp.MustCompile(`^(?i)[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?$`)

var identifierPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// reservedIdentifiers would collide with routes under /chat/.
var reservedIdentifiers = []string{"new", "agent", "messages"}

// AgentForm is an agent's settings as a form sends them. AvatarImage is an uploaded image's bytes
// (nil when none). Password sets a new password when not empty; RemovePassword removes it.
// Models and EmbedOrigins are one entry per line (or comma separated).
type AgentForm struct {
	Identifier, Name, Description, Avatar, AgentType, Model string
	SystemPrompt, WelcomeMessage, Visibility, Accent        string
	Password                                                string
	RemovePassword, Tools, ShowReasoning                    bool
	Models, EmbedOrigins                                    string
	AvatarImage                                             []byte
}

// Capabilities is what an agent may do, stored as its capabilities JSON.
type Capabilities struct {
	Tools     bool `json:"tools"`
	Reasoning bool `json:"reasoning"`
}

// Theme is an agent's look, stored as its theme JSON.
type Theme struct {
	Accent string `json:"accent,omitempty"`
}

// CheckAgent validates a form and returns the store's input. provider is the configured provider
// kind (agents use it); bcryptCost 0 is the default cost. Errors are *fault.Error with Field set.
func CheckAgent(f AgentForm, provider string, bcryptCost int) (db.AgentInput, error) {
	in := db.AgentInput{Provider: provider}
	for _, s := range []string{f.Identifier, f.Name, f.Description, f.Avatar, f.AgentType, f.Model, f.SystemPrompt,
		f.WelcomeMessage, f.Visibility, f.Accent, f.Password, f.Models, f.EmbedOrigins} {
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			return in, fault.Field("", "The form holds text that is not valid UTF-8.")
		}
	}
	in.Identifier = strings.ToLower(strings.TrimSpace(f.Identifier))
	switch {
	case !identifierPattern.MatchString(in.Identifier):
		return in, fault.Field("identifier", "Identifier: 1–63 lower-case letters, digits or dashes, starting with a letter or digit.")
	case slices.Contains(reservedIdentifiers, in.Identifier):
		return in, fault.Field("identifier", "This identifier is reserved; choose another.")
	}
	in.Name = strings.TrimSpace(f.Name)
	if in.Name == "" || utf8.RuneCountInString(in.Name) > maxNameRunes {
		return in, fault.Field("name", "Name: 1–80 characters.")
	}
	in.Description = strings.TrimSpace(f.Description)
	if utf8.RuneCountInString(in.Description) > maxDescriptionRunes {
		return in, fault.Field("description", "Description: at most 500 characters.")
	}
	avatar, err := checkAvatar(f.Avatar, f.AvatarImage)
	if err != nil {
		return in, err
	}
	in.Avatar = avatar
	in.AgentType = f.AgentType
	if !slices.Contains(AgentTypes, in.AgentType) {
		return in, fault.Field("agent_type", "Pick a type: general, router or page_assistant.")
	}
	in.Model = strings.TrimSpace(f.Model)
	if len(in.Model) > maxModelLen || strings.IndexFunc(in.Model, unicode.IsSpace) >= 0 {
		return in, fault.Field("model", "Model: a model id without spaces, at most 200 characters.")
	}
	if in.Models, err = checkModels(f.Models, in.Model); err != nil {
		return in, err
	}
	in.SystemPrompt = strings.TrimSpace(f.SystemPrompt)
	if utf8.RuneCountInString(in.SystemPrompt) > maxPromptRunes {
		return in, fault.Field("system_prompt", "System prompt: at most 20000 characters.")
	}
	in.WelcomeMessage = strings.TrimSpace(f.WelcomeMessage)
	if utf8.RuneCountInString(in.WelcomeMessage) > maxWelcomeRunes {
		return in, fault.Field("welcome_message", "Welcome message: at most 2000 characters.")
	}
	in.Visibility = f.Visibility
	if in.Visibility != "public" && in.Visibility != "private" {
		return in, fault.Field("visibility", "Visibility: public or private.")
	}
	if f.Accent != "" && !slices.Contains(Accents, f.Accent) {
		return in, fault.Field("accent", "Pick one of the theme colours.")
	}
	if in.EmbedOrigins, err = CheckOrigins(f.EmbedOrigins); err != nil {
		return in, err
	}
	switch {
	case f.Password != "":
		if len(f.Password) < minAgentPassword || len(f.Password) > maxAgentPassword {
			return in, fault.Field("password", "Password: 4–72 bytes.")
		}
		if bcryptCost == 0 {
			bcryptCost = bcrypt.DefaultCost
		}
		hash, err := bcrypt.GenerateFromPassword([]byte(f.Password), bcryptCost)
		if err != nil {
			return in, err
		}
		h := string(hash)
		in.SetPassword, in.PasswordHash = true, &h
	case f.RemovePassword:
		in.SetPassword = true
	}
	in.Capabilities, _ = json.Marshal(Capabilities{Tools: f.Tools, Reasoning: f.ShowReasoning})
	accent := f.Accent
	if accent == "indigo" {
		accent = ""
	}
	in.Theme, _ = json.Marshal(Theme{Accent: accent})
	return in, nil
}

// checkAvatar returns an uploaded image as a data:image URL (PNG, JPEG, GIF or WebP by content, at
// most MaxAvatarImageBytes), or the text avatar (an emoji or up to 4 characters, no markup).
func checkAvatar(text string, image []byte) (string, error) {
	if len(image) > 0 {
		if len(image) > MaxAvatarImageBytes {
			return "", fault.Field("avatar", "Avatar image: at most 64 KB.")
		}
		ctype := http.DetectContentType(image)
		if !slices.Contains(avatarTypes, ctype) || !decodes(image) {
			return "", fault.Field("avatar", "Avatar image: a PNG, JPEG, GIF or WebP image that opens (this file does not).")
		}
		return "data:" + ctype + ";base64," + base64.StdEncoding.EncodeToString(image), nil
	}
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "data:image/") {
		return text, checkDataAvatar(text) // the stored image, sent back unchanged
	}
	if utf8.RuneCountInString(text) > 8 || strings.ContainsAny(text, "<>&\"'") {
		return "", fault.Field("avatar", "Avatar: an emoji or up to 8 characters, or upload an image.")
	}
	if text == "" {
		text = "🤖"
	}
	return text, nil
}

// avatarTypes are the content types an avatar image may have.
var avatarTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// maxAvatarSide bounds an avatar image's width and height in pixels.
const maxAvatarSide = 2048

// decodes reports whether the image decodes as one of avatarTypes, at most maxAvatarSide pixels
// wide and high (checked from its header before the whole image is decoded).
func decodes(img []byte) bool {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxAvatarSide || cfg.Height > maxAvatarSide {
		return false
	}
	_, _, err = image.Decode(bytes.NewReader(img))
	return err == nil
}

// checkDataAvatar accepts a data:image URL only as checkAvatar makes them.
func checkDataAvatar(s string) error {
	head, data, ok := strings.Cut(s, ";base64,")
	bad := fault.Field("avatar", "Avatar image: upload it again.")
	if !ok || !strings.HasPrefix(head, "data:") || !slices.Contains(avatarTypes, head[len("data:"):]) {
		return bad
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(raw) > MaxAvatarImageBytes || "data:"+http.DetectContentType(raw) != head || !decodes(raw) {
		return bad
	}
	return nil
}

// checkModels parses the allowed models (one per line or comma separated), dropping duplicates
// and the default model.
func checkModels(raw, model string) ([]string, error) {
	var out []string
	for _, m := range splitList(raw) {
		if len(m) > maxModelLen || strings.IndexFunc(m, unicode.IsSpace) >= 0 {
			return nil, fault.Field("models", "Models: model ids without spaces, at most 200 characters each.")
		}
		if m != model && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	if len(out) > maxModels {
		return nil, fault.Field("models", "Models: at most 10.")
	}
	return out, nil
}

// CheckOrigins parses an embed allow-list: one origin per line or comma separated, each exactly
// "https://host[:port]" or "http://host[:port]" (a trailing "/" is dropped; no path, query,
// fragment, credentials, spaces or CSP syntax), or "*" for any site. Anything else is a field error
// naming the entry.
func CheckOrigins(raw string) ([]string, error) {
	var out []string
	for _, o := range splitList(raw) {
		if o != "*" {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !originHost.MatchString(u.Host) || u.User != nil ||
				!strings.EqualFold(strings.TrimSuffix(o, "/"), u.Scheme+"://"+u.Host) {
				return nil, fault.Field("embed_origins", "Embedding: "+strconv.Quote(o)+" is not an origin. Give bare origins, scheme://host[:port] like https://example.com (no path, spaces or ;), or * for any site.")
			}
			o = u.Scheme + "://" + strings.ToLower(u.Host)
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	if len(out) > maxEmbedOrigins {
		return nil, fault.Field("embed_origins", "Embedding: at most 20 origins.")
	}
	return out, nil
}

func splitList(raw string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(raw, func(r rune) bool { return r == '\n' || r == ',' || r == '\r' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// ReadCapabilities parses an agent's capabilities JSON; missing keys are true (the built-in agents'
// defaults).
func ReadCapabilities(raw json.RawMessage) Capabilities {
	c := struct {
		Tools     *bool `json:"tools"`
		Reasoning *bool `json:"reasoning"`
	}{}
	_ = json.Unmarshal(raw, &c)
	return Capabilities{Tools: c.Tools == nil || *c.Tools, Reasoning: c.Reasoning == nil || *c.Reasoning}
}

// ReadTheme parses an agent's theme JSON.
func ReadTheme(raw json.RawMessage) Theme {
	var t Theme
	_ = json.Unmarshal(raw, &t)
	if !slices.Contains(Accents, t.Accent) {
		t.Accent = ""
	}
	return t
}
