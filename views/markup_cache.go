package views

import (
	"context"
	"io"
	"sync"

	"github.com/a-h/templ"
)

// markup is finished HTML, written as it is.
type markup string

// Render writes the markup.
func (m markup) Render(_ context.Context, w io.Writer) error {
	_, err := io.WriteString(w, string(m))
	return err
}

// markupCache memoizes what a component renders for a view model: K is a comparable copy of
// everything the component reads, so an entry is only ever reused for the very same input and
// nothing has to be invalidated. It holds two generations of at most maxBytes of markup each: when
// the newer one is full it becomes the older one and the older one is dropped, and an entry read
// from the older one moves back to the newer, so what pages keep showing stays.
//
// It exists because one opening of a conversation renders the same finished messages three times
// (the page, the stream's snapshot and the stream's fingerprints of it), and every chat page renders
// the same sidebar items; templ's cost per attribute and per component made that most of the
// page's time besides its SQL.
type markupCache[K comparable] struct {
	mu        sync.Mutex
	cur, prev map[K]kept
	size      int // weight of the entries in cur
	maxBytes  int
}

// kept is one entry: its markup, boxed once so that a hit costs no allocation, and its weight.
type kept struct {
	markup templ.Component
	weight int
}

func newMarkupCache[K comparable](maxBytes int) *markupCache[K] {
	return &markupCache[K]{cur: map[K]kept{}, prev: map[K]kept{}, maxBytes: maxBytes}
}

// get is the markup rendered for k, if kept.
func (c *markupCache[K]) get(k K) (templ.Component, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.cur[k]; ok {
		return e.markup, true
	}
	e, ok := c.prev[k]
	if !ok {
		return nil, false
	}
	delete(c.prev, k)
	c.putLocked(k, e)
	return e.markup, true
}

// put keeps m as the markup of k; weight is what keeping it costs in bytes (the markup and the
// key's own strings).
func (c *markupCache[K]) put(k K, m markup, weight int) {
	if weight > c.maxBytes/16 {
		return // a huge message must not flush everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(k, kept{markup: m, weight: weight})
}

func (c *markupCache[K]) putLocked(k K, e kept) {
	if c.size >= c.maxBytes {
		c.prev, c.cur, c.size = c.cur, map[K]kept{}, 0
	}
	if _, ok := c.cur[k]; !ok {
		c.cur[k] = e
		c.size += e.weight
	}
}

// rendering renders with render and keeps the markup as k's; weight is what keeping k costs
// besides the markup itself (see put).
func (c *markupCache[K]) rendering(k K, weight int, render templ.Component) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		buf := templ.GetBuffer()
		defer templ.ReleaseBuffer(buf)
		if err := render.Render(ctx, buf); err != nil {
			return err
		}
		m := markup(buf.String())
		c.put(k, m, weight+len(m))
		_, err := io.WriteString(w, string(m))
		return err
	})
}
