package markdown

import "testing"

func TestContentHashMatchesGalaxyServerVectors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "00001505"},
		{"a", "0002b606"},
		{"café", "7c9503b8"},
		// Outside the BMP: code points (Python), not UTF-16 units (JS gives 50dabfe3).
		{"Hello 🧬", "9d9b20c5"},
		{"# Intro\nSome intro text\n# Methods\nSome methods text", "04a5773b"},
	} {
		if got := ContentHash(tc.in); got != tc.want {
			t.Errorf("ContentHash(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// utf16Hash is Galaxy's browser variant, kept here only to pin the
// difference the package comment describes.
func utf16Hash(s string) uint32 {
	var h uint32 = 5381
	for _, c := range s {
		if c >= 0x10000 {
			c -= 0x10000
			h = h*33 + uint32(0xD800+(c>>10))
			h = h*33 + uint32(0xDC00+(c&0x3FF))
			continue
		}
		h = h*33 + uint32(c)
	}
	return h
}

func TestContentHashDiffersFromGalaxyBrowserOutsideBMP(t *testing.T) {
	if got := utf16Hash("Hello 🧬"); got != 0x50dabfe3 {
		t.Fatalf("UTF-16 variant = %08x, want 50dabfe3 (Galaxy JS)", got)
	}
	if got := utf16Hash("café"); got != 0x7c9503b8 {
		t.Fatalf("UTF-16 variant of BMP text = %08x, want the code-point hash", got)
	}
}
