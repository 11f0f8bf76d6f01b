package markdown

import (
	"bytes"
	"crypto/sha256"
	"sync"
)

// htmlCache keeps rendered HTML by the SHA-256 of what it was rendered from,
// bounded by entry count and total bytes, oldest out first. The code block
// renderer keeps pre-sanitising highlighted blocks in one; RenderFinal keeps
// whole sanitised documents in another.
type htmlCache struct {
	mu         sync.Mutex
	entries    map[[sha256.Size]byte][]byte
	order      [][sha256.Size]byte
	size       int
	maxEntries int
	maxBytes   int
}

func newHTMLCache(maxEntries, maxBytes int) *htmlCache {
	return &htmlCache{entries: map[[sha256.Size]byte][]byte{}, maxEntries: maxEntries, maxBytes: maxBytes}
}

func (c *htmlCache) get(key [sha256.Size]byte) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.entries[key]
	return v, ok
}

func (c *htmlCache) put(key [sha256.Size]byte, html []byte) {
	if len(html) > c.maxBytes/4 {
		return // one huge block must not flush everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok {
		return
	}
	c.entries[key] = bytes.Clone(html)
	c.order = append(c.order, key)
	c.size += len(html)
	for len(c.order) > c.maxEntries || c.size > c.maxBytes {
		old := c.order[0]
		c.order = c.order[1:]
		c.size -= len(c.entries[old])
		delete(c.entries, old)
	}
}

// clear empties the cache.
func (c *htmlCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries, c.order, c.size = map[[sha256.Size]byte][]byte{}, nil, 0
}
