package gameconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// TestDeadlinesBlock: the game file's deadlines block as a GM writes it
// reaches the game's config, its schedule in the zone it names (or the
// board's), applying to the game's main kinds of phase unless it names
// others, with its grace and replacement times.
func TestDeadlinesBlock(t *testing.T) {
	dir := t.TempDir()
	london, _ := time.LoadLocation("Europe/London")
	berlin, _ := time.LoadLocation("Europe/Berlin")
	const resistance = "name: x\ngame: resistance\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, time_zone: Europe/Berlin}\nplayers: [A1, B1, C1, D1, E1]\n"
	for _, c := range []struct {
		name, block       string
		zone              *time.Location
		schedule          string
		minimum           time.Duration
		mission, proposal bool
		grace, repl       time.Duration
	}{
		{"full", "deadlines:\n  at: '21:00'\n  zone: Europe/London\n  days: [Mon, Thu]\n  minimum: 24h\n  grace: 12h\n  replacement_extension: 1d\n",
			london, "21:00 Europe/London, Mon and Thu", 24 * time.Hour, true, false, 12 * time.Hour, 24 * time.Hour},
		{"board's zone, default minimum", "deadlines: {at: '9:30', days: [sat]}\n", berlin, "09:30 Europe/Berlin, Sat", 84 * time.Hour, true, false, 0, 0},
		{"every proposal", "deadlines: {at: '21:00', phases: [mission, proposal]}\n", berlin, "21:00 Europe/Berlin, every day", 12 * time.Hour, true, true, 0, 0},
		{"grace only", "deadlines: {grace: 90m}\n", nil, "", 0, false, false, 90 * time.Minute, 0},
	} {
		p := filepath.Join(dir, "g.yaml")
		os.WriteFile(p, []byte(resistance+c.block), 0o644)
		gf, err := LoadGameFile(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		gc, fc, _ := gf.Configs(time.Now())
		site, err := fc.Site()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		s, err := gc.Deadlines.Schedule(site.Zone)
		eng, _ := rules.Lookup("resistance")
		switch {
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.schedule == "" && s != nil:
			t.Errorf("%s: schedule %v, want none", c.name, s)
		case c.schedule != "" && (s == nil || s.String() != c.schedule || s.Zone.String() != c.zone.String() || s.Minimum != c.minimum):
			t.Errorf("%s: schedule %+v, want %s, minimum %v", c.name, s, c.schedule, c.minimum)
		}
		if m, p := gc.Deadlines.Scheduled(eng, "mission"), gc.Deadlines.Scheduled(eng, "proposal"); m != c.mission || p != c.proposal {
			t.Errorf("%s: scheduled mission %v proposal %v, want %v %v", c.name, m, p, c.mission, c.proposal)
		}
		if gc.Deadlines.GraceTime() != c.grace || gc.Deadlines.ReplacementTime() != c.repl {
			t.Errorf("%s: grace %v replacement %v, want %v %v", c.name, gc.Deadlines.GraceTime(), gc.Deadlines.ReplacementTime(), c.grace, c.repl)
		}
	}
	var none *Deadlines
	if s, err := none.Schedule(time.UTC); s != nil || err != nil || none.GraceTime() != 0 || none.ReplacementTime() != 0 {
		t.Errorf("no block: %v %v", s, err)
	}
}

func TestDeadlinesBlockErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, block, want string }{
		{"days without at", "deadlines: {days: [Mon]}\n", "needs at"},
		{"bad clock", "deadlines: {at: '9pm'}\n", "24-hour clock time"},
		{"bad zone", "deadlines: {at: '21:00', zone: Mars/Olympus}\n", `zone "Mars/Olympus"`},
		{"local zone", "deadlines: {at: '21:00', zone: Local}\n", `zone "Local"`},
		{"bad day", "deadlines: {at: '21:00', days: [Mo]}\n", "weekday"},
		{"bad minimum", "deadlines: {at: '21:00', minimum: soon}\n", "minimum"},
		{"negative minimum", "deadlines: {at: '21:00', minimum: -1h}\n", "minimum"},
		{"unknown phase kind", "deadlines: {at: '21:00', phases: [mission]}\n", `nations has no "mission" phases (it has round)`},
		{"grace too long", "deadlines: {grace: 8d}\n", "grace 8d: must be 0 to 7d"},
		{"grace not a duration", "deadlines: {grace: a while}\n", "grace"},
		{"replacement too long", "deadlines: {replacement_extension: 200h}\n", "replacement_extension 200h: must be 0 to 7d"},
		{"misspelt", "deadlines: {graze: 1h}\n", "graze"},
	} {
		p := filepath.Join(dir, "g.yaml")
		os.WriteFile(p, []byte(okMyBB+"players: [a]\n"+c.block), 0o644)
		if _, err := LoadGameFile(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
