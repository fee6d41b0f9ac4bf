package forumsim

import (
	"fmt"
	"time"
)

// DemoUser is a seeded account.
type DemoUser struct {
	ID       int
	Name     string
	Password string
	Exempt   bool
}

// Demo describes what SeedDemo created.
type Demo struct {
	ForumID int
	TopicID int
	Users   []DemoUser // players first, the GM bot last
	Bot     DemoUser
}

// SeedDemo fills a board with a forum, six members (one with BBCode-like
// characters in the name, and a flood-exempt "GM Bot") and a 25-post game
// thread using what vote counters must get right: bold votes, votes inside
// quotes and spoilers, struck-through votes, a signature with bold text, and
// an edited post. password gives each user's password (nil: random).
// Posts are dated over the two hours before now.
func SeedDemo(s *Server, password func(name string) string) (Demo, error) {
	if password == nil {
		password = func(string) string { return randHex(5) }
	}
	var d Demo
	names := []string{"Alice", "Bob", "Carol", "Dave", "Zoë [the] Bold"}
	for _, n := range names {
		pw := password(n)
		id, err := s.AddUser(n, pw, false)
		if err != nil {
			return d, err
		}
		d.Users = append(d.Users, DemoUser{ID: id, Name: n, Password: pw})
	}
	pw := password("GM Bot")
	bot, err := s.AddUser("GM Bot", pw, true)
	if err != nil {
		return d, err
	}
	d.Bot = DemoUser{ID: bot, Name: "GM Bot", Password: pw, Exempt: true}
	d.Users = append(d.Users, d.Bot)
	if err := s.SetSignature(d.Users[3].ID, "[i]Dave[/i] | [b]Town forever[/b]"); err != nil {
		return d, err
	}
	d.ForumID = s.AddForum("Forum Games", "Play-by-forum games run by forumgm")
	s.AddForum("Off-topic", "Anything else")

	id := func(i int) int { return d.Users[i].ID }
	alice, bob, carol, dave, zoe := id(0), id(1), id(2), id(3), id(4)
	type step struct {
		who  int
		text string
	}
	script := []step{
		{bot, "[b]Game 1 — Resistance[/b]\nWelcome! Sign up by posting [b]/in[/b]. Votes are [b]bold[/b]; quotes, spoilers and struck text never count."},
		{alice, "[b]/in[/b]"},
		{bob, "[b]/in[/b] Looking forward to this."},
		{carol, "[b]/in[/b]"},
		{dave, "[b]/in[/b]"},
		{zoe, "[b]/in[/b] (yes, my name has brackets)"},
		{bot, "Sign-ups closed. Roles go out by PM.\n[list]\n[*]Alice\n[*]Bob\n[*]Carol\n[*]Dave\n[*]Zoë [\u200bthe] Bold\n[/list]"},
		{alice, "I'm the leader. [b]TEAM Alice, Bob[/b]"},
		{bob, "[quote=Alice][b]TEAM Alice, Bob[/b][/quote]\nFine by me. [b]APPROVE[/b]"},
		{carol, "Hmm. [s][b]APPROVE[/b][/s] [b]REJECT[/b]"},
		{dave, "[spoiler][b]APPROVE[/b] — just kidding[/spoiler]\n[b]REJECT[/b]"},
		{zoe, "[b]APPROVE[/b]"},
		{alice, "[b]APPROVE[/b] obviously"},
		{bot, "[b]Team approved[/b] 3–2. Alice and Bob, send your mission cards by PM."},
		{carol, "Code for the record:\n[code][b]SABOTAGE[/b] is not a thread command[/code]"},
		{bob, "[color=#AA0000]Mission went fine from my side.[/color]"},
		{bot, "[b]Mission 1: success[/b] (0 sabotages)."},
		{bob, "My turn to lead. [b]TEAM Bob, Carol[/b]"},
		{dave, "[quote=\"Bob\"][b]TEAM Bob, Carol[/b][/quote]\n[quote=Carol][quote=Bob]nested[/quote]still a quote[/quote]\n[b]REJECT[/b]"},
		{zoe, "[b][i]REJECT[/i][/b] [size=150]sus[/size]"},
		{alice, "[b]APPROVE[/b]"},
		{carol, "[b]APPROVE[/b] [url=https://example.com/rules]rules[/url]"},
		{bob, "[b]APPROVE[/b]"},
		{bot, "[b]Team approved[/b] 4–1."},
		{alice, "Waiting on the mission."},
	}
	start := s.now().Add(-2 * time.Hour)
	step5 := 2 * time.Hour / time.Duration(len(script)+1)
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &Topic{ForumID: d.ForumID, Title: "Game 1 — Resistance"}
	s.nextID.topic++
	t.ID = s.nextID.topic
	s.topics[t.ID] = t
	d.TopicID = t.ID
	var edited *Post
	for i, st := range script {
		u := s.users[st.who]
		subject := "Re: " + t.Title
		if i == 0 {
			subject = t.Title
		}
		p := s.addPost(t, u.ID, u.Name, subject, st.text)
		p.Time = start.Add(time.Duration(i) * step5)
		if i == 9 {
			edited = p
		}
	}
	if len(t.posts) != 25 {
		return d, fmt.Errorf("forumsim: demo thread has %d posts", len(t.posts))
	}
	// Carol changes her mind in an earlier post: phpBB shows the notice.
	s.edit(edited, s.users[carol], "Hmm. [s][b]APPROVE[/b][/s] [b]REJECT[/b]\n[i]edit: still reject[/i]", "")
	edited.EditTime = edited.Time.Add(3 * time.Minute)
	return d, nil
}
