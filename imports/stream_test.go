package imports_test

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"parley/db"
	"parley/imports"
)

// writeZip writes a zip of name, content pairs into dir and returns its path.
func writeZip(t testing.TB, dir, name string, files ...string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for i := 0; i+1 < len(files); i += 2 {
		w, err := zw.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, files[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// A 64 MB export (2,048 conversations of 32 KB, made on the fly and never held whole) is read
// with the heap staying far below the file's size: Read holds one conversation at a time.
func TestReadStreamsALargeExportInBoundedMemory(t *testing.T) {
	const conversations, size = 2048, 32 << 10
	pr, pw := io.Pipe()
	go func() {
		filler := strings.Repeat("lorem ipsum ", size/12)
		_, _ = io.WriteString(pw, "[")
		for i := range conversations {
			if i > 0 {
				_, _ = io.WriteString(pw, ",")
			}
			fmt.Fprintf(pw, `{"title": "c%d", "conversation_id": "c%d", "create_time": 1700000000, "current_node": "a",
				"mapping": {"r": {"id": "r", "message": null, "parent": null, "children": ["u"]},
				"u": {"id": "u", "parent": "r", "children": ["a"], "message": {"id": "u", "author": {"role": "user"}, "content": {"content_type": "text", "parts": ["%s"]}}},
				"a": {"id": "a", "parent": "u", "children": [], "message": {"id": "a", "author": {"role": "assistant"}, "recipient": "all", "content": {"content_type": "text", "parts": ["ok"]}}}}}`,
				i, i, filler)
		}
		_, _ = io.WriteString(pw, "]")
		pw.Close()
	}()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	n := 0
	_, err := imports.Read(pr, func(x db.ImportedExchange) error {
		n++
		if n%64 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
		return nil
	})
	if err != nil || n != conversations {
		t.Fatalf("read %d conversations: %v", n, err)
	}
	total := uint64(conversations * size)
	if grew := peak - base; grew > total/8 {
		t.Fatalf("heap grew %d MB reading a %d MB export: it is not streamed", grew>>20, total>>20)
	}
}
