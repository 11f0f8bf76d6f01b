package views

import (
	"sync"

	"github.com/a-h/templ"
)

// Icon draws one icon of the sprite static/vendor/icons.svg, which make builds from npm's
// lucide-static (the names are lucide's, listed in the Makefile's ICONS). class sets its size (for
// example "h-4 w-4"; 1em square by default). It is decorative (aria-hidden): the control around it
// carries the accessible name, as visible text or an aria-label. (No focusable="false": only
// Internet Explorer focused SVGs; <use/> may close itself inside <svg>.)
//
// It is written in Go rather than templ because a page draws it a hundred times: its markup is
// built once per name and class and then copied, where a templ element with a class expression
// takes a pooled buffer and a class list of its own on every call.
func Icon(name, class string) templ.Component {
	key := iconKey{name, class}
	icon, ok := iconMarkup.Load(key)
	if !ok {
		svg := `<svg class="` + templ.EscapeString(classes("icon", class)) + `" aria-hidden="true"><use href="` +
			templ.EscapeString(iconHref(name)) + `"/></svg>`
		icon, _ = iconMarkup.LoadOrStore(key, templ.Component(markup(svg)))
	}
	return icon.(templ.Component)
}

// iconKey names one drawn icon: its sprite symbol and its classes.
type iconKey struct{ name, class string }

// iconMarkup caches the <svg> of each iconKey, boxed once as a templ.Component. The set is small
// and fixed: the names and classes are constants of the views.
var iconMarkup sync.Map

// classes joins class names, leaving out empty ones.
func classes(a, b string) string {
	if b == "" {
		return a
	}
	return a + " " + b
}
