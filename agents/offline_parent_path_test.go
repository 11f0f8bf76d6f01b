package agents

import (
	"encoding/json"
	"strings"
	"testing"

	"parley/markdown"
	"parley/pages"
)

// changelog repeats "### Added" and "### Fixed" under every release, as Keep a Changelog does; one
// release has two "### Added" sections (a merge slip) and one is nested a level deeper.
const changelog = `# Changelog

## [Unreleased]

### Added

- Dark mode.

## [1.7.0] - 2020-09-14

### Added

- Export to CSV.

### Fixed

- Crash on start.

## [1.6.0] - 2020-08-01

### Added

- Import.

### Added

- Twice.

## Archive

### [0.9.0]

#### Added

- The first release.

[1.7.0]: https://example.com/compare/v1.6.0...v1.7.0
`

// offlinePatch runs one offline page command against page and applies the proposal it makes the
// way Accept does (pages.NewSectionPatch, every row), or returns the assistant's text.
func offlinePatch(t *testing.T, page, command string) (string, string) {
	t.Helper()
	r := offlinePageReply(Request{System: "guide" + PageContentMarker + page, Messages: []Message{{Role: RoleUser, Content: command}}})
	if r.call == nil {
		return "", r.text
	}
	var args PatchSectionArgs
	if err := json.Unmarshal([]byte(r.call.Arguments), &args); err != nil {
		t.Fatal(err)
	}
	e, err := pages.NewSectionPatch(page, args.Operation, args.Target, args.NewContent, args.Reasoning)
	if err != nil {
		t.Fatalf("%s: the proposal is refused: %v (target %q)", command, err, args.Target)
	}
	rev := pages.Check(e, markdown.ContentHash(page), page)
	all := make([]int, len(rev.Rows))
	for i := range all {
		all[i] = i
	}
	out, err := rev.Apply(all)
	if err != nil {
		t.Fatalf("%s: apply: %v", command, err)
	}
	return out, ""
}

// Every offline command that names a section takes a parent path ("[1.7.0] - 2020-09-14 > Added"),
// as its ambiguity message suggests, and edits exactly that section.
func TestOfflineCommandsNameASectionByItsParentPath(t *testing.T) {
	for _, c := range []struct{ command, old, new string }{
		{"replace section [1.7.0] - 2020-09-14 > Added with - Export to JSON.",
			"### Added\n\n- Export to CSV.", "### Added\n\n- Export to JSON."},
		{"append - Export to PDF. to section [1.7.0] - 2020-09-14 > Added",
			"- Export to CSV.\n", "- Export to CSV.\n\n- Export to PDF.\n"},
		{"add to section [Unreleased] > ### Added: - Search.",
			"- Dark mode.\n", "- Dark mode.\n\n- Search.\n"},
		{"rename section [1.7.0] - 2020-09-14 > Fixed to Repaired",
			"### Fixed", "### Repaired"},
		{"remove section [1.7.0] - 2020-09-14 > Fixed",
			"### Fixed\n\n- Crash on start.\n\n", ""},
		{"rename section Changelog > Archive > [0.9.0] > Added to Initial", // a deeper path
			"#### Added", "#### Initial"},
		{"remove section Archive > Added", // a parent further up than the closest
			"\n#### Added\n\n- The first release.\n\n[1.7.0]: https://example.com/compare/v1.6.0...v1.7.0\n", ""},
	} {
		got, text := offlinePatch(t, changelog, c.command)
		if text != "" {
			t.Errorf("%s: no proposal: %s", c.command, text)
			continue
		}
		if want := strings.Replace(changelog, c.old, c.new, 1); got != want {
			t.Errorf("%s:\n got %q\nwant %q", c.command, got, want)
		}
	}
}

// A path that does not settle the section, or names a parent the page lacks, says so in plain
// words (never the section engine's error text), and proposes nothing.
func TestOfflineParentPathThatNamesNoSingleSectionExplains(t *testing.T) {
	for _, c := range []struct{ command, want string }{
		{"replace section Added with x", "matches 5 sections"},
		{"rename section Added to New", "name one by its parent"},
		{"replace section [1.6.0] - 2020-08-01 > Added with x", "matches 2 sections"},
		{"replace section Changelog > Added with x", "matches 5 sections"},
		{"append x to section [9.9.9] > Added", `No section **Added** is under **\[9.9.9\]**`},
		{"remove section [1.7.0] - 2020-09-14 > Removed", "couldn't find a section called **Removed**"},
		{"rename section [1.7.0] - 2020-09-14 > Added to #", "Give the section its new title"},
	} {
		got, text := offlinePatch(t, changelog, c.command)
		if got != "" {
			t.Errorf("%s: proposed %q", c.command, got)
		}
		if !strings.Contains(text, c.want) {
			t.Errorf("%s: answer %q, want %q", c.command, text, c.want)
		}
		if strings.Contains(text, "markdown:") {
			t.Errorf("%s: the answer shows an internal error: %q", c.command, text)
		}
	}
}
