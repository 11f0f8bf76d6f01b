package markdown

import (
	"os"
	"testing"
	"time"
)

func FuzzZZHang(f *testing.F) {
	f.Add("# A\n")
	f.Add("---\nx: y\n---\n# T\n")
	f.Add("```\n# x\n")
	f.Add("\ufeff---\n---\n")
	f.Add("A\r\n-\r\n")
	f.Fuzz(func(t *testing.T, doc string) {
		done := make(chan struct{})
		go func() { Split(doc); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			os.WriteFile("/tmp/hang_input.txt", []byte(doc), 0o644)
			panic("hang")
		}
	})
}
