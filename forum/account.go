package forum

import "strings"

// Account names one bot account on one board: the one definition of "the
// same board and bot account". Games with the same Account share a login
// session, an inbox and a poll cycle, and a PM in that inbox may be for any
// of them. It is comparable (a map key).
type Account struct {
	Board string // BoardKey of the board's URL
	Bot   string // the bot's user name, trimmed, in lower case
}

// AccountOf is the account of a bot named bot on the board at url.
func AccountOf(url, bot string) Account {
	return Account{Board: BoardKey(url), Bot: strings.ToLower(strings.TrimSpace(bot))}
}

// BoardKey names a board by its root URL: surrounding space and trailing
// slashes dropped, in lower case ("http://Board.example/" and
// "http://board.example" are one board). Boards share a request pacer by it.
func BoardKey(url string) string {
	return strings.ToLower(strings.TrimRight(strings.TrimSpace(url), "/"))
}

// String is the account as logs show it.
func (a Account) String() string { return a.Bot + " on " + a.Board }
