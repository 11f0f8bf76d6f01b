package markdown

import (
	"errors"
	"reflect"
	"testing"
)

const releases = "# Changelog\n\n## 0.74.3\n\n### Fixes\n\na\n\n## 0.74.2\n\n### Fixes\n\nb\n\n## Later > notes\n\nc\n"

// A duplicate heading can be named by its parents' path ("0.74.3 > Fixes"); an ambiguous target's
// error lists the matching sections' parent paths.
func TestFindByParentPath(t *testing.T) {
	o := Split(releases)
	for target, want := range map[string]string{
		"0.74.3 > Fixes":             "a",
		"0.74.2 > ### Fixes":         "b",
		"Changelog > 0.74.2 > Fixes": "b",
		"changelog>0.74.3>fixes":     "a",
		"Later > notes":              "c",
		"## Later > notes":           "c",
	} {
		i, err := o.Find(target)
		if err != nil {
			t.Errorf("Find(%q): %v", target, err)
			continue
		}
		if got := o.Sections[i].Body; got != "\n"+want+"\n\n" && got != "\n"+want+"\n" {
			t.Errorf("Find(%q) found the section with body %q", target, got)
		}
	}
	for _, target := range []string{"0.74.4 > Fixes", "Fixes > 0.74.3"} {
		if _, err := o.Find(target); !errors.Is(err, ErrSectionNotFound) {
			t.Errorf("Find(%q) = %v, want not found", target, err)
		}
	}
	_, err := o.Find("### Fixes")
	var se *SectionError
	if !errors.As(err, &se) || !errors.Is(err, ErrSectionAmbiguous) {
		t.Fatalf("Find(### Fixes) = %v", err)
	}
	if want := []string{"Changelog > 0.74.3", "Changelog > 0.74.2"}; !reflect.DeepEqual(se.Paths, want) {
		t.Fatalf("paths = %q, want %q", se.Paths, want)
	}
}
