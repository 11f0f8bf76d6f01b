package handlers_test

import (
	"bytes"
	"image"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"parley/handlers/handlerstest"
)

// postAgentWithImage posts the agent form as multipart with an avatar image file.
func postAgentWithImage(c *handlerstest.Client, form url.Values, image []byte) handlerstest.Response {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, vs := range form {
		for _, v := range vs {
			_ = w.WriteField(k, v)
		}
	}
	_ = w.WriteField("_csrf", c.CSRFToken())
	f, _ := w.CreateFormFile("avatar_image", "avatar.png")
	_, _ = f.Write(image)
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, c.URL("/agents"), &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return c.Do(req)
}

// An uploaded avatar must decode as an image; pages link it from a cached, content-addressed
// route instead of inlining it.
func TestAvatarImagesDecodeAndAreServedFromARoute(t *testing.T) {
	_, c := signedIn(t)
	var buf bytes.Buffer
	_ = png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 4, 4)))
	good := buf.Bytes()
	broken := append(append([]byte{}, good[:16]...), bytes.Repeat([]byte{0}, 64)...) // PNG magic, garbage after
	if res := postAgentWithImage(c, agentForm("broken"), broken); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("an image that does not decode: %d, want 422", res.Status)
	}
	if res := postAgentWithImage(c, agentForm("owl"), good); res.Status != http.StatusSeeOther {
		t.Fatalf("a PNG avatar: %d\n%s", res.Status, res.Body)
	}
	page := c.Get("/chat/owl")
	src := doc(t, page.Body).Find(`[data-testid=agent-name]`).Parent().Find(`img`).AttrOr("src", "")
	if !strings.HasPrefix(src, "/avatars/") || strings.Contains(page.Body, "data:image/png;base64") {
		t.Fatalf("the avatar is %q; want a link to /avatars/…, not an inlined image", src)
	}
	res := c.Get(src)
	if res.Status != http.StatusOK || res.Header.Get("Content-Type") != "image/png" || res.Body != string(good) ||
		!strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
		t.Fatalf("GET %s: %d %q %q", src, res.Status, res.Header.Get("Content-Type"), res.Header.Get("Cache-Control"))
	}
	for _, bad := range []string{"/avatars/" + strings.Repeat("0", 64), "/avatars/nothex"} {
		if res := c.Get(bad); res.Status != http.StatusNotFound {
			t.Fatalf("GET %s: %d, want 404", bad, res.Status)
		}
	}
}
