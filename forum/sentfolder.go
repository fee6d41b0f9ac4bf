package forum

import "errors"

// SaysSentFolderFull reports whether the bot's sent folder page says the
// folder (or the account's PM storage) is full (profile
// sent_folder_full_text): the board then deletes the oldest sent PMs
// (SentFolderSize > 0) or keeps no copy of new ones (SentFolderSize 0).
func (p Profile) SaysSentFolderFull(pageText string) bool {
	return Mentions(pageText, p.SentFolderFullText) != ""
}

// ErrNoProof: the board cannot show whether a message went out (its sent
// folder is full, or longer than can be read), and checking again will
// not change that until someone acts. The message stays unconfirmed and is
// never resent; its lane waits, the game's other messages go on.
var ErrNoProof = errors.New("the board cannot show whether it went out")
