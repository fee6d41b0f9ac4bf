package forum

import "testing"

// One board and bot account, however a GM writes its URL and the bot's
// name: the sessions, the poll cycles and the PM routing all go by it.
func TestAccountOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url1, bot1, url2, bot2 string
		same                   bool
	}{
		{"http://board.example/", "GMbot", "http://board.example", "GMbot", true},
		{"http://Board.Example/forum/", "GMbot", "http://board.example/forum", "gmbot", true},
		{" http://board.example// ", " GMbot ", "http://board.example", "GMBOT", true},
		{"http://board.example/", "GMbot", "http://board.example/", "OtherBot", false},
		{"http://board.example/a/", "GMbot", "http://board.example/b/", "GMbot", false},
		{"http://board.example:8080/", "GMbot", "http://board.example/", "GMbot", false},
	}
	for _, tc := range tests {
		a, b := AccountOf(tc.url1, tc.bot1), AccountOf(tc.url2, tc.bot2)
		if (a == b) != tc.same {
			t.Errorf("%q %q vs %q %q: same %v, want %v (%v, %v)", tc.url1, tc.bot1, tc.url2, tc.bot2, a == b, tc.same, a, b)
		}
	}
	if BoardKey("http://Board.example/") != AccountOf("http://board.example", "x").Board {
		t.Error("an account's board is not its URL's BoardKey")
	}
}

func TestMessageKind(t *testing.T) {
	t.Parallel()
	if KindPost != "post" || KindPM != "pm" {
		t.Fatal("the stored kind strings changed: existing databases hold post and pm")
	}
	if KindPM.Name() != "PM" || KindPost.Name() != "post" {
		t.Errorf("names %q %q", KindPM.Name(), KindPost.Name())
	}
}
