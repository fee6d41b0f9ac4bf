package demo

import (
	"context"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/protest"
	"github.com/forumgm/forumgm/rules/resistance"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
)

// TestSecretsStaySecret plays a whole game of every kind with a real
// `forumgm run` and keeps everything anyone but a PM's recipient can see:
// every bot post in the threads, every line the runner logs, `forumgm
// status` and `status --json` taken all through the games, and every error
// (the outboxes' last errors, rejection reasons, the CLI's error output).
// None may hold a secret: a Resistance spy's list of fellow spies (before
// the final reveal), a Protest site nobody found or a scan result, a
// Nations order (its PM receipt), any line of any PM (in logs, status and
// errors), the bot's password, a database URL's password. The secrets are
// taken from the games' own private views and PMs, and each must be found
// in the PM it was meant for, so the test cannot pass by finding nothing.
// The desk's public page of each game (run --http --public) is read all
// through the game too. (Database files 0600 and URL redaction in store errors: store/secrets_test.go.)
func TestSecretsStaySecret(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays whole games in real time")
	}
	dir := t.TempDir()
	bin := buildForumgm(t)
	dbPath := filepath.Join(dir, "secrets.db")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m := &moderator.Moderator{DB: db, Clock: clock.Real{}}

	type game struct {
		kind, name string
		b          *Board
		send       *Senders
		table      *simplayers.Table
	}
	var games []*game
	var passwords []string
	for i, kind := range Games() {
		b, err := NewBoard(kind, "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer b.Stop()
		pwFile := filepath.Join(dir, kind+".pw")
		if err := os.WriteFile(pwFile, []byte(b.BotPW), 0o600); err != nil {
			t.Fatal(err)
		}
		passwords = append(passwords, b.BotPW)
		fc := b.ForumConfig("", 1)
		fc.PasswordFile = pwFile
		name := "secrets-" + kind
		speed := 1.0
		if kind == "protest" {
			// Its demo turns are 6 s, and a reminder halfway through one
			// lapsed, its turn closed first, in every turn of a loaded CI
			// run: 12 s turns, reminded 2 s in, while most still owe orders.
			speed = 0.5
		}
		gc := b.GameConfig(speed, int64(7+i), time.Now())
		if kind == "protest" || kind == "nations" {
			// Early in the turn (Protest 12 s, Nations 12 s rounds), while
			// most still owe orders: with the default, later, the players
			// had all sent theirs first on a CI run, and no reminder went.
			gc.Reminders.Before = &gameconfig.Offsets{"10s"}
		}
		gc.Reminders.Prod = "6s" // prods too, for players who go quiet for a few seconds
		if _, err := m.Create(ctx, name, kind, gc, fc, b.Players()); err != nil {
			t.Fatal(err)
		}
		send, err := b.Senders(false, func(string, ...any) {})
		if err != nil {
			t.Fatal(err)
		}
		defer send.Close()
		eng, _ := rules.Lookup(kind)
		// The players ask for counts often; Protest's, who order by PM and
		// post little in the thread, at every move.
		ask := 3
		if kind == "protest" {
			ask = 1
		}
		table := &simplayers.Table{Game: eng, Seed: int64(7 + i), AskCounts: ask}
		if kind == "protest" || kind == "nations" {
			// Players who all order in the turn's first seconds leave
			// nobody to remind (a CI run had none in every Protest turn):
			// one is late, as some always are, until reminded.
			table.Hold = lateUntilReminded(ctx, db, name, eng)
		}
		games = append(games, &game{kind: kind, name: name, b: b, send: send, table: table})
	}

	// What anyone but a PM's recipient may see, gathered as it is made.
	var logs, status, errs, pages syncBuffer
	// The desk's public page of each game, served by the runner.
	desk := freeAddr(t)
	args := []string{"run", "--db", dbPath, "--http", desk}
	for _, g := range games {
		args = append(args, "--public", g.name)
	}
	runner := exec.CommandContext(ctx, bin, args...)
	runner.Env = append(os.Environ(), "FORUMGM_WEB_PASSWORD=desk-password-for-the-test")
	runner.Stdout, runner.Stderr = &logs, &logs
	if err := runner.Start(); err != nil {
		t.Fatal(err)
	}
	cli := func(args ...string) {
		out, err := exec.Command(bin, args...).CombinedOutput()
		status.Write(out)
		if err != nil {
			errs.Write([]byte(err.Error()))
		}
	}
	lastStatus := time.Time{}
	for {
		if ctx.Err() != nil {
			t.Fatalf("the games did not finish in time; the runner's log:\n%s", tail(logs.String(), 3000))
		}
		done := 0
		for _, g := range games {
			row := soakRow(t, db, g.name)
			if row.Status == moderator.Finished && isDrained(t, ctx, db, row.ID) {
				done++
				continue
			}
			if st, err := g.table.Game.Decode(row.State); err == nil {
				g.table.Act(ctx, st, g.send)
			}
			// The public page while the game runs (at the end the rules
			// reveal everything there too).
			if row.Status == moderator.Running && time.Since(lastStatus) > 3*time.Second {
				for _, page := range []string{"/p/" + g.name, "/p/" + g.name + "/log"} {
					if resp, err := http.Get("http://" + desk + page); err == nil {
						io.Copy(&pages, resp.Body)
						resp.Body.Close()
					}
				}
			}
		}
		if done == len(games) {
			break
		}
		if time.Since(lastStatus) > 3*time.Second {
			cli("status", "--db", dbPath)
			cli("status", "--json", "--db", dbPath)
			lastStatus = time.Now()
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, g := range games {
		cli("status", "--db", dbPath, g.name)
		cli("status", "--json", "--db", dbPath, g.name)
	}
	runner.Process.Signal(syscall.SIGTERM)
	if err := runner.Wait(); err != nil {
		t.Errorf("forumgm run did not stop cleanly: %v", err)
	}
	// A database URL with a password, wrong in ways that end in errors.
	const dbPW = "Sw0rdfish-db-pass"
	for _, dsn := range []string{"postgres://gm:" + dbPW + "@127.0.0.1:1/forumgm?connect_timeout=1", "postgres://gm:" + dbPW + "@ho st/forumgm"} {
		for _, args := range [][]string{{"status", "--db", dsn}, {"run", "--db", dsn}, {"audit", "--db", dsn, "x"}} {
			out, err := exec.Command(bin, args...).CombinedOutput()
			if err == nil {
				t.Errorf("forumgm %s with an unreachable database succeeded", args[0])
			}
			errs.Write(out)
		}
	}
	cli("status", "--db", dbPath, "no-such-game")

	// The games' own errors: what the outboxes last failed with and why
	// commands were refused.
	for _, g := range games {
		db.View(ctx, func(tx *store.Tx) error {
			row, err := tx.Game(g.name)
			if err != nil {
				return err
			}
			out, _ := tx.Outbox(row.ID)
			for _, it := range out {
				fmt.Fprintln(&errs, it.LastError)
			}
			cmds, _ := tx.Commands(row.ID, store.CommandFilter{})
			for _, c := range cmds {
				if c.Channel == string(rules.Public) {
					fmt.Fprintln(&errs, c.Reason)
				}
			}
			return nil
		})
	}

	if !strings.Contains(pages.String(), "secrets-") || !strings.Contains(pages.String(), ": vote log") {
		t.Errorf("the public pages and vote logs were not read:\n%s", tail(pages.String(), 500))
	}
	hidden := map[string]string{
		"the runner's log": logs.String(),
		"status output":    status.String(),
		"errors":           errs.String(),
	}
	for _, s := range passwords {
		for what, text := range hidden {
			if strings.Contains(text, s) {
				t.Errorf("%s holds a bot's password", what)
			}
		}
	}
	for what, text := range hidden {
		if strings.Contains(text, dbPW) {
			t.Errorf("%s holds the database URL's password", what)
		}
	}

	for _, g := range games {
		t.Run(g.kind, func(t *testing.T) {
			row := soakRow(t, db, g.name)
			st, err := g.table.Game.Decode(row.State)
			if err != nil {
				t.Fatal(err)
			}
			// What the bot posted in the thread, in order.
			var posts []string
			for _, p := range botPostsOf(g.b.Sim, g.b.Topic, BotName) {
				posts = append(posts, p.Source)
			}
			// Each player's PMs from the bot.
			pms := map[string]string{}
			var allPMs []string
			for _, s := range g.b.Seats {
				for _, pm := range g.b.Sim.Inbox(s.ID) {
					if pm.FromID == g.b.BotID {
						pms[s.Name] += pm.Source + "\n"
						allPMs = append(allPMs, pm.Source)
					}
				}
			}
			if len(posts) < 3 || len(allPMs) < len(g.b.Seats) {
				t.Fatalf("too little to judge: %d posts, %d PMs", len(posts), len(allPMs))
			}
			for _, pw := range passwords {
				if strings.Contains(strings.Join(posts, "\n")+strings.Join(allPMs, "\n"), pw) {
					t.Error("a post or PM holds a bot's password")
				}
			}

			// The public pages: no password, no PM line, no secret.
			for _, pw := range passwords {
				if strings.Contains(pages.String(), pw) {
					t.Error("a public page holds a bot's password")
				}
			}
			// No line of any PM in the log, status, errors or public pages.
			n := 0
			for _, pm := range allPMs {
				for _, l := range pmLines(pm) {
					n++
					for what, text := range hidden {
						if strings.Contains(text, l) {
							t.Errorf("%s holds a line of a PM: %q", what, l)
						}
					}
					if strings.Contains(pages.String(), l) {
						t.Errorf("a public page holds a line of a PM: %q", l)
					}
				}
			}
			if n == 0 {
				t.Fatal("no PM lines to look for")
			}

			// The game's own secrets, each in its recipient's PMs and in
			// no post (before the end, where the rules reveal them).
			public := posts
			var secrets []gameSecret
			switch g.kind {
			case "resistance":
				public = posts[:len(posts)-1] // the last post is the final reveal
				secrets = resistanceSecrets(t, g.table.Game, st)
				// The PM line that names every fellow spy is the secret.
				for i, sc := range secrets {
					for _, l := range strings.Split(pms[sc.to], "\n") {
						if containsAll(l, sc.names) {
							secrets[i].text = strings.TrimSpace(l)
						}
					}
					if secrets[i].text == "" {
						t.Errorf("no PM to the spy %s names the other spies %v:\n%s", sc.to, sc.names, pms[sc.to])
						secrets[i].text = "(" + strings.Join(sc.names, ", ") + ")" // reported; still looked for below
					}
				}
				last := posts[len(posts)-1]
				for _, s := range secrets {
					for _, spy := range s.names {
						if !strings.Contains(last, spy) {
							t.Errorf("the final post does not reveal %s:\n%s", spy, last)
						}
					}
				}
			case "protest":
				var sites []string
				secrets, sites = protestSecrets(t, g.table.Game, st)
				// A site nobody found stays hidden from the log and status
				// (the posts draw the map, where any hex name appears).
				for _, site := range sites {
					re := regexp.MustCompile(`\b` + site + `\b`)
					for what, text := range hidden {
						if loc := re.FindStringIndex(text); loc != nil {
							t.Errorf("%s names the hidden site %s: …%s…", what, site, text[max(0, loc[0]-80):min(len(text), loc[1]+80)])
						}
					}
				}
			case "nations":
				secrets = nationsSecrets(pms)
			}
			if len(secrets) == 0 {
				t.Fatal("no secrets found: the test would prove nothing")
			}
			for _, s := range secrets {
				if !strings.Contains(pms[s.to], s.text) {
					t.Errorf("the secret %q is not in the PMs to %s, where it belongs:\n%s", s.text, s.to, pms[s.to])
				}
				for i, p := range public {
					if strings.Contains(p, s.text) {
						t.Errorf("post %d of the thread holds %s's secret %q:\n%s", i+1, s.to, s.text, p)
					}
				}
				for what, text := range hidden {
					if strings.Contains(text, s.text) {
						t.Errorf("%s holds %s's secret %q", what, s.to, s.text)
					}
				}
				if strings.Contains(pages.String(), s.text) {
					t.Errorf("a public page holds %s's secret %q", s.to, s.text)
				}
			}
			checkBetween(t, db, g.name, g.kind, posts, allPMs, pages.String())
			t.Logf("%d secrets and %d PM lines checked against %d posts, %d bytes of log, %d of status, %d of errors, %d of public pages",
				len(secrets), n, len(public), len(logs.String()), len(status.String()), len(errs.String()), len(pages.String()))
		})
	}
}

// lateUntilReminded holds the game's first player back in each phase until
// the bot's reminder of that phase has reached him, or until 3 s before its
// deadline, so the phase does not wait on him forever if none comes.
func lateUntilReminded(ctx context.Context, db *store.DB, name string, g rules.Game) func(string, rules.State) bool {
	return func(p string, s rules.State) bool {
		if p != s.Roster().IDs()[0] {
			return false
		}
		st := g.Status(s)
		if st.Deadline.IsZero() || time.Until(st.Deadline) < 3*time.Second {
			return false
		}
		reminded := false
		db.View(ctx, func(tx *store.Tx) error {
			row, err := tx.Game(name)
			if err != nil {
				return err
			}
			out, err := tx.Outbox(row.ID)
			for _, it := range out {
				if it.Recipient == p && it.State == store.OutboxSent && strings.HasSuffix(it.Subject, st.Title+": reminder") {
					reminded = true
				}
			}
			return err
		})
		return !reminded
	}
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func containsAll(s string, subs []string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

// gameSecret is something only player to may know.
type gameSecret struct {
	to, text string
	names    []string // the players it is about (Resistance: the spies)
}

// pmLines are a PM's lines long enough to be its own (short ones such as
// "INVADE Bob" or a bare name could appear anywhere), without the marker.
func pmLines(pm string) []string {
	var out []string
	for _, l := range strings.Split(pm, "\n") {
		l = strings.TrimSpace(l)
		if len(l) >= 16 && !strings.Contains(l, forum.MarkerPrefix) {
			out = append(out, l)
		}
	}
	return out
}

// resistanceSecrets: each spy learns the other spies by PM; that list
// (the PM line naming them all) is the secret.
func resistanceSecrets(t *testing.T, g rules.Game, st rules.State) []gameSecret {
	var out []gameSecret
	for _, id := range st.Roster().IDs() {
		v := g.View(st, id).(resistance.View)
		if v.Role != resistance.Spy {
			continue
		}
		var others []string
		for who, role := range v.Known {
			if who != id && role == resistance.Spy {
				others = append(others, st.Roster().Name(who))
			}
		}
		slices.Sort(others)
		if len(others) == 0 {
			continue
		}
		out = append(out, gameSecret{to: st.Roster().Name(id), names: others})
	}
	if len(out) == 0 {
		t.Fatal("no spy knows another spy")
	}
	return out
}

// protestSecrets: each player's scan results, and the sites nobody found.
func protestSecrets(t *testing.T, g rules.Game, st rules.State) ([]gameSecret, []string) {
	var out []gameSecret
	for _, id := range st.Roster().IDs() {
		v := g.View(st, id).(protest.View)
		if v.Me == nil {
			continue
		}
		for _, r := range v.Me.Results {
			out = append(out, gameSecret{to: st.Roster().Name(id), text: fmt.Sprintf("%s %d (sites within %d of %s)", r.Label, r.Count, r.Radius, r.Hex)})
		}
	}
	s := st.(*protest.State)
	found := map[string]bool{}
	for _, r := range g.View(st, rules.Everyone).(protest.View).Revealed {
		found[r.Hex] = true
	}
	var hidden []string
	for _, site := range s.Sites {
		if !found[site] {
			hidden = append(hidden, site)
		}
	}
	return out, hidden
}

// nationsSecrets: every order a player made, as the bot's receipt told
// them.
func nationsSecrets(pms map[string]string) []gameSecret {
	var out []gameSecret
	for who, text := range pms {
		for _, l := range strings.Split(text, "\n") {
			if i := strings.Index(l, "Your order for round "); i >= 0 {
				out = append(out, gameSecret{to: who, text: strings.TrimSpace(l[i:])})
			}
		}
	}
	return out
}

// checkBetween is the secrets test between deadlines: the game had counts
// (the players asked for them), reminders and prods, whose PM lines the
// checks above found nowhere else; the public vote log holds no command
// sent by PM (only a number); and in The Resistance no count names, as a
// vote in the thread, a player who voted only by PM.
func checkBetween(t *testing.T, db *store.DB, name, kind string, posts, pms []string, pages string) {
	t.Helper()
	counts := 0
	for _, p := range posts {
		if strings.Contains(p, " — count ") {
			counts++
		}
	}
	reminders, prods := 0, 0
	for _, pm := range pms {
		if strings.Contains(pm, ", a reminder ") {
			reminders++
		}
		if strings.Contains(pm, "the game has not heard from you") {
			prods++
		}
	}
	if counts == 0 || reminders == 0 || prods == 0 {
		t.Errorf("%d counts, %d reminders, %d prods: the test would prove nothing of them", counts, reminders, prods)
	}
	var cmds []store.CommandRow
	var evs []store.EventRow
	db.View(context.Background(), func(tx *store.Tx) error {
		row, err := tx.Game(name)
		if err != nil {
			return err
		}
		if cmds, err = tx.Commands(row.ID, store.CommandFilter{}); err != nil {
			return err
		}
		evs, err = tx.PublicEvents(row.ID, "count")
		return err
	})
	thread := strings.Join(posts, "\n")
	for _, c := range cmds {
		if c.Channel == string(rules.Public) {
			thread += "\n" + c.Text
		}
	}
	// A PM command's own words, found nowhere public, must not be in the
	// vote log (short ones such as "PROSPER" may be anywhere).
	private := 0
	for _, c := range cmds {
		if c.Channel != string(rules.Public) && len(c.Text) >= 8 && !strings.Contains(thread, c.Text) {
			private++
			if strings.Contains(pages, html.EscapeString(c.Text)) {
				t.Errorf("a public page holds the PM command %q", c.Text)
			}
		}
	}
	t.Logf("%d counts, %d reminders, %d prods; %d PM commands looked for in the vote log", counts, reminders, prods, private)
	if kind != "resistance" {
		return
	}
	// Who voted in the thread, and who only by PM, in each proposal.
	inThread, byPM := map[string]map[string]bool{}, map[string]map[string]bool{}
	for _, c := range cmds {
		if c.Kind != "vote" || c.Status != store.CommandAccepted {
			continue
		}
		m := byPM
		if c.Channel == string(rules.Public) {
			m = inThread
		}
		if m[c.Phase] == nil {
			m[c.Phase] = map[string]bool{}
		}
		m[c.Phase][c.Player] = true
	}
	checked := 0
	for _, e := range evs {
		for _, line := range strings.Split(e.Text, "\n") {
			if !strings.Contains(line, " in the thread (") {
				continue
			}
			for who := range byPM[e.Phase] {
				if inThread[e.Phase][who] {
					continue
				}
				checked++
				if strings.Contains(line, who+" (") {
					t.Errorf("a count of %s names %s, who voted only by PM: %s", e.Phase, who, line)
				}
			}
		}
	}
	t.Logf("%d count lines checked for players who voted only by PM", checked)
}
