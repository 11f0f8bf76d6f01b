package handlers

import (
	"encoding/base64"
	"net/http"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"

	"parley/db"
)

var avatarHash = regexp.MustCompile(`^[0-9a-f]{64}$`)

// showAvatar is /avatars/{hash}: an uploaded avatar image by the SHA-256 of its data URL
// (views.AvatarPath), cached for good since the address changes with the image. Unknown or
// malformed hashes are 404. Anyone may load it, like the agent's public pages; the hash cannot be
// guessed without the image.
func (a *app) showAvatar(c echo.Context) error {
	hash := c.Param("hash")
	if !avatarHash.MatchString(hash) {
		return db.ErrNotFound
	}
	avatar, err := a.store.AvatarByHash(c.Request().Context(), hash)
	if err != nil {
		return err
	}
	head, data, _ := strings.Cut(avatar, ";base64,")
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	return c.Blob(http.StatusOK, strings.TrimPrefix(head, "data:"), raw)
}
