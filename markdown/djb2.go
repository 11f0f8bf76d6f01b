package markdown

import "fmt"

// ContentHash is Galaxy's page-assistant staleness hash (djb2), kept so a
// proposal can record the content it was based on as original_content_hash:
//
//	h = 5381; for each Unicode code point c: h = (h*33 + c) mod 2^32
//
// returned as 8 lowercase, zero-padded hex digits ("" → "00001505").
//
// It iterates code points, like Galaxy's Python server (`ord(c)`), not
// UTF-16 code units like Galaxy's browser code (`charCodeAt`); the two
// disagree on characters outside the Basic Multilingual Plane ("Hello 🧬" is
// "9d9b20c5" here and in Python, "50dabfe3" in Galaxy's JS). Parley computes
// both sides on the server, so this is the only definition. Invalid UTF-8
// bytes count as U+FFFD each (Go's range-over-string rule); callers refuse
// invalid UTF-8 at the edge anyway.
func ContentHash(s string) string {
	var h uint32 = 5381
	for _, c := range s {
		h = h*33 + uint32(c) // uint32 arithmetic is the mod 2^32
	}
	return fmt.Sprintf("%08x", h)
}
