package agents

import (
	"encoding/json"
	"testing"

	"parley/markdown"
)

// A title typed with a line break ("T\n# U") makes one heading, not two sections.
func TestSectionTitlesWithLineBreaksMakeOneHeading(t *testing.T) {
	page := "# Report\n\nIntro.\n\n## Methods\n\nOld.\n"
	for _, query := range []string{"add a section \"T\n# U\" with text", "rename section Methods to \"T\n# U\""} {
		r := offlinePageReplyFor(t, page, query)
		var args PatchSectionArgs
		if err := json.Unmarshal([]byte(r.call.Arguments), &args); err != nil {
			t.Fatal(err)
		}
		o := markdown.Split(args.NewContent)
		if len(o.Sections) != 1 || o.Sections[0].Title != "T # U" {
			t.Errorf("%q proposes %q", query, args.NewContent)
		}
	}
}

// offlinePageReplyFor runs the first page command matching query.
func offlinePageReplyFor(t *testing.T, page, query string) offlineReply {
	t.Helper()
	for _, c := range pageCommands {
		if m := c.re.FindStringSubmatch(query); m != nil {
			r := c.propose(page, m)
			if r.call == nil {
				t.Fatalf("%q: no proposal: %s", query, r.text)
			}
			return r
		}
	}
	t.Fatalf("no command matches %q", query)
	return offlineReply{}
}
