// Package static embeds the files served under /static/: the built stylesheet (css/app.css, made by
// `make css`), the htmx scripts (vendor/, copied from node_modules by `make vendor`), our own small
// scripts (js/) and images (img/).
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sync"
)

//go:embed css js img all:vendor
var files embed.FS

// FS is the tree served under /static/.
var FS fs.FS = files

var (
	versionsOnce sync.Once
	versions     map[string]string
)

// URL returns "/static/<name>?v=<first 10 hex digits of the file's SHA-256>", so a changed file gets
// a new URL and browsers may cache each version forever. An unknown name gets no version.
func URL(name string) string {
	versionsOnce.Do(func() {
		versions = map[string]string{}
		_ = fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(files, path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			versions[path] = hex.EncodeToString(sum[:])[:10]
			return nil
		})
	})
	if v, ok := versions[name]; ok {
		return "/static/" + name + "?v=" + v
	}
	return "/static/" + name
}
