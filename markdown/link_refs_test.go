package markdown

import (
	"reflect"
	"strings"
	"testing"
)

const changelogRefs = "# Changelog\n\n## [1.7.0] - 2020-09-14\n\n- See [the diff][cmp].\n\n## [1.6.0]\n\n- Old ![logo].\n\n" +
	"[1.7.0]: https://example.com/v1.7.0\n[1.6.0]: https://example.com/v1.6.0\n[cmp]: https://example.com/compare\n[logo]: /logo.png\n[unused]: https://example.com/x\n"

// A change that drops link reference definitions the rest of the page still uses reports them
// (full, collapsed and shortcut references, images too); definitions kept, moved, unused or no
// longer referenced are not reported, nor are look-alikes in code.
func TestBrokenReferencesListsDefinitionsStillUsed(t *testing.T) {
	defs := changelogRefs[strings.Index(changelogRefs, "[1.7.0]: "):]
	for _, c := range []struct {
		name, old, new string
		want           []string
	}{
		{"last section removed with the definitions", changelogRefs, changelogRefs[:strings.Index(changelogRefs, "## [1.6.0]")], []string{"1.7.0", "cmp"}},
		{"every definition removed", changelogRefs, strings.TrimSuffix(changelogRefs, defs), []string{"1.6.0", "1.7.0", "cmp", "logo"}},
		{"definitions moved to the top", changelogRefs, defs + "\n" + strings.TrimSuffix(changelogRefs, defs), nil},
		{"the uses go too", changelogRefs, "# Changelog\n\nNothing.\n", nil},
		{"only the unused one goes", changelogRefs, strings.Replace(changelogRefs, "[unused]: https://example.com/x\n", "", 1), nil},
		{"case and spacing of labels", "See [Big  Name].\n\n[big name]: /x\n", "See [Big  Name].\n", []string{"big name"}},
		{"no definitions", "plain\n", "plainer\n", nil},
		{"a definition inside a code block is none", "[a]\n\n    [a]: /x\n", "[a]\n", nil},
		{"a use inside code is none", "`[a]`\n\n[a]: /x\n", "`[a]`\n", nil},
	} {
		if got := BrokenReferences(c.old, c.new); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
