package pages

import "testing"

func TestMerge3(t *testing.T) {
	base := "a\nb\nc\nd\ne\n"
	for _, tc := range []struct {
		name, mine, theirs, want string
		ok                       bool
	}{
		{"only mine changed", "a\nB\nc\nd\ne\n", base, "a\nB\nc\nd\ne\n", true},
		{"only theirs changed", base, "a\nb\nc\nD\ne\n", "a\nb\nc\nD\ne\n", true},
		{"separate lines", "a\nB\nc\nd\ne\n", "a\nb\nc\nD\ne\n", "a\nB\nc\nD\ne\n", true},
		{"same change on both sides", "a\nX\nc\nd\ne\n", "a\nX\nc\nd\ne\n", "a\nX\nc\nd\ne\n", true},
		{"same line changed differently", "a\nX\nc\nd\ne\n", "a\nY\nc\nd\ne\n", "", false},
		{"insert and delete apart", "a\nb\nnew\nc\nd\ne\n", "a\nb\nc\nd\n", "a\nb\nnew\nc\nd\n", true},
		{"inserts at the same place", "a\nmine\nb\nc\nd\ne\n", "a\ntheirs\nb\nc\nd\ne\n", "", false},
		{"insert next to a changed line", "a\nb\nmine\nc\nd\ne\n", "a\nb\nC\nd\ne\n", "", false},
		{"adjacent changed lines", "a\nB\nc\nd\ne\n", "a\nb\nC\nd\ne\n", "a\nB\nC\nd\ne\n", true},
		{"append at the end on both sides, differently", base + "x\n", base + "y\n", "", false},
		{"CRLF lines keep their endings", "a\r\nB\r\nc\r\n", "a\r\nb\r\nC\r\n", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := base
			if tc.name == "CRLF lines keep their endings" {
				b, tc.want = "a\r\nb\r\nc\r\n", "a\r\nB\r\nC\r\n"
			}
			got, ok := Merge3(b, tc.mine, tc.theirs)
			if ok != tc.ok || got != tc.want {
				t.Fatalf("Merge3 = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
			if ok { // merging is symmetric when clean
				if back, _ := Merge3(b, tc.theirs, tc.mine); back != got {
					t.Fatalf("swapped sides give %q", back)
				}
			}
		})
	}
}

func FuzzMerge3KeepsEachSidesChange(f *testing.F) {
	f.Add("a\nb\nc\n", 0, "X\n", 2, "Y\n")
	f.Add("", 0, "x", 0, "y")
	f.Fuzz(func(t *testing.T, base string, i int, x string, j int, y string) {
		lines := splitLines(base)
		if len(lines) == 0 || len(lines) > 50 {
			return
		}
		i, j = abs(i)%len(lines), abs(j)%len(lines)
		if abs(i-j) < 2 {
			return // touching changes may conflict
		}
		edit := func(k int, s string) string {
			out := append(append(append([]string{}, lines[:k]...), s), lines[k+1:]...)
			return join(out)
		}
		if x == "" || y == "" || !endsLine(x) || !endsLine(y) || !endsLine(base) {
			return
		}
		mine, theirs := edit(i, x), edit(j, y)
		got, ok := Merge3(base, mine, theirs)
		lo, hi := min(i, j), max(i, j)
		out := append([]string{}, lines...)
		out[i], out[j] = x, y
		if want := join(out); !ok || got != want {
			if lines[lo] == out[lo] || lines[hi] == out[hi] {
				return // a no-op change lets the diff align differently
			}
			t.Fatalf("Merge3 = %q, %v; want %q", got, ok, want)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func endsLine(s string) bool { return len(s) > 0 && s[len(s)-1] == '\n' && countNL(s) == 1 }

func countNL(s string) int {
	n := 0
	for i := range len(s) {
		if s[i] == '\n' || s[i] == '\r' {
			n++
		}
	}
	return n
}

func join(lines []string) string {
	s := ""
	for _, l := range lines {
		s += l
	}
	return s
}

func TestMergeTitleTakesTheSideThatChangedIt(t *testing.T) {
	for _, tc := range []struct{ base, mine, theirs, want string }{
		{"Plan", "Plan", "Plan B", "Plan B"},
		{"Plan", "Plan A", "Plan", "Plan A"},
		{"Plan", "Plan A", "Plan B", "Plan A"},
		{"Plan", "Plan", "Plan", "Plan"},
	} {
		if got := MergeTitle(tc.base, tc.mine, tc.theirs); got != tc.want {
			t.Errorf("MergeTitle(%q, %q, %q) = %q, want %q", tc.base, tc.mine, tc.theirs, got, tc.want)
		}
	}
}
