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

// Target names every section so that Find returns it: the heading when unique, else the shortest
// parent path; a parent further up than the closest also finds it ("Changelog > 0.74.3 > Fixes"
// as "Changelog > Fixes" when only one "Fixes" is under "Changelog" in order).
func TestTargetNamesEachSectionAlone(t *testing.T) {
	doc := releases + "\n## Archive\n\n### 0.1\n\n#### Fixes\n\nd\n\n### Twin\n\n### Twin\n"
	o := Split(doc)
	want := map[int]string{2: "0.74.3 > Fixes", 4: "0.74.2 > Fixes", 8: "#### Fixes", 0: "# Changelog"}
	for i := range o.Sections {
		got := o.Target(i)
		if w, ok := want[i]; ok && got != w {
			t.Errorf("Target(%d) = %q, want %q", i, got, w)
		}
		if o.Sections[i].Title == "Twin" {
			if _, err := o.Find(got); !errors.Is(err, ErrSectionAmbiguous) {
				t.Errorf("two identical paths: Target(%d) = %q finds one (%v)", i, got, err)
			}
			continue
		}
		if j, err := o.Find(got); err != nil || j != i {
			t.Errorf("Find(Target(%d) = %q) = %d, %v", i, got, j, err)
		}
	}
	if i, err := o.Find("Archive > Fixes"); err != nil || o.Sections[i].Body != "\nd\n\n" {
		t.Errorf("Find(Archive > Fixes) = %d, %v", i, err)
	}
}
