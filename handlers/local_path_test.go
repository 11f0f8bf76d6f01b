package handlers

import "testing"

// Only paths on this site pass as local (sign-in's next, an answer's suggestion links); every
// spelling a browser reads as another host is refused.
func TestLocalPathRefusesEveryOtherHostSpelling(t *testing.T) {
	for target, local := range map[string]bool{
		"/": true, "/pages/3": true, "/sessions/1/chat?x=1#m": true, "/a\\b": true,
		"": false, "pages/3": false, "//evil.example": false, "/\\evil.example": false, "/\\/evil.example": false,
		"/\t/evil.example": false, "/\n/evil.example": false, "/ /evil.example": false, "https://evil.example/": false,
		"javascript:alert(1)": false, "\\\\evil.example": false, "/\x00": false, "/\x7f": false,
	} {
		if got := isLocalPath(target); got != local {
			t.Errorf("isLocalPath(%q) = %v, want %v", target, got, local)
		}
	}
	if got := safeNext("/\\evil.example"); got != "/" {
		t.Errorf("safeNext(/\\evil.example) = %q", got)
	}
}
