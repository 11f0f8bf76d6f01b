package views

import "strconv"

// AgentsPage is /agents: the agents the viewer manages, the public agents of others, and (for
// admins) the floating chat button setting.
type AgentsPage struct {
	Page
	Managed []AgentRow
	Public  []AgentRow
	// IsAdmin shows the floating widget setting; WidgetAgent is its agent identifier ("" = off).
	IsAdmin     bool
	WidgetAgent string
	WidgetError string
}

// AgentRow is one agent in a list.
type AgentRow struct {
	ID                                    int64
	Identifier, Name, Description, Avatar string
	Visibility                            string
	Owner                                 string
	HasPassword, Disabled, Builtin        bool
}

// agentURL is an agent's page or action URL: /agents/{id}{suffix} (/chat, /edit, /delete …).
func agentURL(id int64, suffix string) string { return "/agents/" + strconv.FormatInt(id, 10) + suffix }

// AgentFormPage is the create or edit form of an agent. ID is 0 for a new one.
type AgentFormPage struct {
	Page
	ID                                                      int64
	Identifier, Name, Description, Avatar, AgentType, Model string
	SystemPrompt, WelcomeMessage, Visibility, Accent        string
	Models, EmbedOrigins                                    string
	Tools, ShowReasoning, HasPassword, Disabled             bool
	// Builtin agents keep their identifier, type, visibility (public) and no password.
	Builtin bool
	// Provider is the configured provider kind; ProviderModel its default model.
	Provider, ProviderModel string
	// Errors maps a field name to its message; "" is the form's.
	Errors map[string]string
	// PublicURL and EmbedSnippet are shown for a saved agent (absolute URLs).
	PublicURL, EmbedSnippet string
	AgentTypes, Accents     []string
}

// Action is where the form posts.
func (f AgentFormPage) Action() string {
	if f.ID == 0 {
		return "/agents"
	}
	return agentURL(f.ID, "")
}
