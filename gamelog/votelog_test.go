package gamelog

import "testing"

// TestSafeCell: a cell a spreadsheet would run as a formula is neutralised,
// whatever it starts with; others are left as they are.
func TestSafeCell(t *testing.T) {
	for in, want := range map[string]string{
		"=1+1": "'=1+1", "+SUM(A1)": "'+SUM(A1)", "-2+3": "'-2+3", "@cmd": "'@cmd", "\tx": "'\tx", "\rx": "'\rx",
		"APPROVE": "APPROVE", "": "", "a=b": "a=b", "'quoted": "'quoted",
	} {
		if got := safeCell(in); got != want {
			t.Errorf("safeCell(%q) = %q, want %q", in, got, want)
		}
	}
}
