package agents

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"
)

func TestCheckOrigins(t *testing.T) {
	ok := map[string][]string{
		"https://Shop.Example.com\nhttp://localhost:8080/": {"https://shop.example.com", "http://localhost:8080"},
		"*":                            {"*"},
		"https://a.com, https://a.com": {"https://a.com"},
		"":                             nil,
	}
	for in, want := range ok {
		got, err := CheckOrigins(in)
		if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("CheckOrigins(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"example.com", "https://a.com/path", "javascript:alert(1)", "https://a.com 'unsafe-inline'", "ftp://a.com", "https://u:p@a.com",
		"http://a.com; script-src *", "https://a.com#", "https://a.com?", "https://a.com:x", "https://a.com:8080/x", "https://*.a.com;"} {
		if _, err := CheckOrigins(bad); err == nil {
			t.Errorf("CheckOrigins(%q) accepted", bad)
		}
	}
}

func TestAvatarImageIsCheckedByContent(t *testing.T) {
	var buf bytes.Buffer
	_ = png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 2, 2)))
	form := AgentForm{Identifier: "owl", Name: "Owl", AgentType: "general", Visibility: "public", AvatarImage: buf.Bytes()}
	in, err := CheckAgent(form, "offline", 4)
	if err != nil || !strings.HasPrefix(in.Avatar, "data:image/png;base64,") {
		t.Fatalf("png avatar: %v %q", err, in.Avatar)
	}
	// The stored image comes back through the form unchanged.
	form.AvatarImage, form.Avatar = nil, in.Avatar
	if again, err := CheckAgent(form, "offline", 4); err != nil || again.Avatar != in.Avatar {
		t.Fatalf("resubmitted avatar: %v", err)
	}
	for name, img := range map[string][]byte{
		"svg (scripts)":  []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`),
		"too large":      append(append([]byte{}, buf.Bytes()...), make([]byte, MaxAvatarImageBytes)...),
		"truncated":      buf.Bytes()[:len(buf.Bytes())-12],
		"png magic only": append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...),
	} {
		form.AvatarImage = img
		if _, err := CheckAgent(form, "offline", 4); err == nil {
			t.Errorf("%s accepted as an avatar", name)
		}
	}
	form.AvatarImage, form.Avatar = nil, "data:image/png;base64,PHN2Zz4="
	if _, err := CheckAgent(form, "offline", 4); err == nil {
		t.Error("a forged data URL (svg bytes labelled png) was accepted")
	}
}
