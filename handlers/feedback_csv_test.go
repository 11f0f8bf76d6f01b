package handlers

import "testing"

// A cell a spreadsheet would run as a formula is defused, also behind leading blanks or a BOM.
func TestCSVCellDefusesFormulas(t *testing.T) {
	for in, want := range map[string]string{
		"=1+1": "'=1+1", "+1": "'+1", "-1": "'-1", "@SUM(A1)": "'@SUM(A1)", "\t=1": "'\t=1", "\r=1": "'\r=1",
		" =HYPERLINK(\"x\")": "' =HYPERLINK(\"x\")", "  +1": "'  +1", "\u00a0=1": "'\u00a0=1", "\ufeff=1": "'\ufeff=1",
		"plain": "plain", "": "", " leading space": " leading space", "a=b": "a=b",
	} {
		if got := csvCell(in); got != want {
			t.Errorf("csvCell(%q) = %q, want %q", in, got, want)
		}
	}
}
