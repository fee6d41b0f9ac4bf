package forum

import "testing"

// The built-in profiles read their boards' own "too long" refusals and
// success pages (wording from the engines' language files).
func TestTooLongAndSent(t *testing.T) {
	tests := []struct {
		engine, page string
		tooLong      bool
		max          int
		sent         bool
	}{
		{"phpbb", "Your message contains 69075 characters.The maximum number of allowed characters is 60000.", true, 60000, false},
		{"phpbb", "Information\n  Your message contains too many characters.", true, 0, false},
		{"phpbb", "Information This message has been sent successfully. Click here to view your message.", false, 0, true},
		{"phpbb", "This message has been posted successfully.", false, 0, true},
		{"phpbb", "You cannot make another post so soon after your last.", false, 0, false},
		{"phpbb", "The requested users to be added do not exist.", false, 0, false},
		{"mybb", "The message is too long. Please enter a message shorter than 65,535 characters (currently 70,001).", true, 65535, false},
		{"mybb", "Thank you, your private message has successfully been sent. You will now be returned to your private message inbox.", false, 0, true},
		{"mybb", "Thank you, your reply has been posted.", false, 0, true},
		{"smf", "The message exceeds the maximum allowed length (20000 characters).", true, 20000, false},
		{"smf", "Your message is too long. Please go back and shorten it, then try again.", true, 0, false},
		{"smf", "Your message has been sent successfully.", false, 0, true},
	}
	for _, tc := range tests {
		p, _ := Builtin(tc.engine)
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		tooLong, max := p.TooLong(tc.page)
		if tooLong != tc.tooLong || max != tc.max {
			t.Errorf("%s %q: too long %v %d, want %v %d", tc.engine, tc.page, tooLong, max, tc.tooLong, tc.max)
		}
		if got := p.SaysSent(tc.page); got != tc.sent {
			t.Errorf("%s %q: sent %v, want %v", tc.engine, tc.page, got, tc.sent)
		}
	}
}
