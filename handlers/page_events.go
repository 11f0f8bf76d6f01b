package handlers

import (
	"strconv"

	"github.com/labstack/echo/v4"

	"parley/chat"
	"parley/db"
)

// pageChanged tells the page's open editors, on every instance, that p was stored at a new
// version (a save, an accepted or undone proposal, a restored revision). The notice carries ids
// only.
func (a *app) pageChanged(p db.Page) {
	a.notifier.Publish(chat.PageTopic(p.ID), int64(p.Version))
}

// pageEvents is the SSE stream of an open editor (GET /pages/:id/events): one "page-changed"
// event whose data is the stored version (a decimal integer) on connect, so a reconnecting editor
// catches up on what it missed, then one whenever the page is stored at a newer version, from any
// instance. The editor reads the new text from /pages/:id/sync. It counts as one of the person's
// streams (PARLEY_MAX_STREAMS_PER_PERSON).
func (a *app) pageEvents(c echo.Context) error {
	ctx := c.Request().Context()
	p, err := a.viewerPage(c)
	if err != nil {
		return err
	}
	owner := chatOwner(c)
	if err := a.streams.acquire(owner); err != nil {
		c.Response().Header().Set("Retry-After", "10")
		return err
	}
	defer a.streams.release(owner)
	sub := a.notifier.Subscribe(chat.PageTopic(p.ID)) // before the first event: no change falls between
	defer sub.Close()
	s := startSSE(c)
	sent := int64(p.Version)
	if s.event("page-changed", strconv.FormatInt(sent, 10)) != nil {
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-a.closing:
			return nil
		case <-a.heartbeat.C():
			if s.comment("ping") != nil {
				return nil
			}
			continue
		case <-sub.Ready():
		}
		newest := sent
		if sub.Resynced() { // notices may have been lost: read the version again
			cur, err := a.viewerPage(c)
			if err != nil {
				return nil // gone or unreachable: the browser reconnects and catches up
			}
			newest = max(newest, int64(cur.Version))
		}
		for _, v := range sub.Take() {
			newest = max(newest, v)
		}
		if newest == sent {
			continue
		}
		sent = newest
		if s.event("page-changed", strconv.FormatInt(sent, 10)) != nil {
			return nil
		}
	}
}
