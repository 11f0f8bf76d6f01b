package imports

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path"
	"strings"

	"parley/fault"
)

// Open opens an export file for Read: a JSON file as it is, or a zip (ChatGPT's data export) by
// its conversations.json — or its only .json file. It returns the JSON stream and its size in
// bytes (uncompressed, for a zip), for progress. A zip without conversations is fault.Invalid.
func Open(file string) (io.ReadCloser, int64, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	magic := make([]byte, 4)
	n, _ := io.ReadFull(f, magic)
	if !bytes.Equal(magic[:n], []byte("PK\x03\x04")) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, 0, err
		}
		return f, st.Size(), nil
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		f.Close()
		return nil, 0, fault.New(fault.Invalid, "The zip file cannot be read (%s): it may be cut short; download the export again.", err.Error())
	}
	var found *zip.File
	var jsons, names []string
	for _, zf := range zr.File {
		names = append(names, zf.Name)
		if strings.HasSuffix(strings.ToLower(zf.Name), ".json") {
			jsons = append(jsons, zf.Name)
			if path.Base(zf.Name) == "conversations.json" {
				found = zf
			}
		}
	}
	if found == nil && len(jsons) == 1 {
		for _, zf := range zr.File {
			if zf.Name == jsons[0] {
				found = zf
			}
		}
	}
	if found == nil {
		f.Close()
		if len(names) > 6 {
			names = append(names[:6], "…")
		}
		return nil, 0, fault.New(fault.Invalid, "The zip holds no conversations.json (it has: %s). Upload ChatGPT's export zip, or the JSON file itself.",
			strings.Join(names, ", "))
	}
	rc, err := found.Open()
	if err != nil {
		f.Close()
		return nil, 0, fault.New(fault.Invalid, "%s in the zip cannot be read: %s.", found.Name, err.Error())
	}
	return readCloser{Reader: rc, close: func() error { rc.Close(); return f.Close() }}, int64(found.UncompressedSize64), nil
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
