package moderator

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// noteStep records how a game's step went, for the desk and `status`: a
// failure adds to the game's run of step errors, a success ends the run.
// cleared says the run is known to be over, so a healthy game costs no
// write per poll; the worker starts with it false, since a run may be left
// from an earlier process.
func (m *Moderator) noteStep(ctx context.Context, id int64, stepErr error, cleared *bool) {
	if ctx.Err() != nil {
		return // stopping: a cancelled step is no failure
	}
	if stepErr == nil && *cleared {
		return
	}
	err := m.DB.Tx(ctx, func(tx *store.Tx) error {
		if stepErr == nil {
			return tx.ClearStepError(id)
		}
		return tx.RecordStepError(id, GMError(stepErr), m.now())
	})
	if err != nil {
		m.log().Warn("recording the step's outcome", "game_id", id, "err", err)
		return
	}
	*cleared = stepErr == nil
}

// secretParam matches the values of query parameters and form fields that
// hold a session or a password (phpBB's sid, MyBB's my_post_key, SMF's
// session token, …): an error that quotes a URL must not hand them to
// whoever reads the desk.
var secretParam = regexp.MustCompile(`(?i)\b(sid|s|phpsessid|sessionid|session|my_post_key|logoutkey|sesc|token|csrf|form_token|creation_time|password|passwd|pass|pw|api_key|key)=([^&\s"'<>;,)]*[^&\s"'<>;,):])`)

// urlPassword is the password of a URL's user info (//user:PASS@host).
var urlPassword = regexp.MustCompile(`(//[^/@\s:]*):[^/@\s]*@`)

// modulePackages are the names of this module's packages (its test kits,
// commands and the games under rules/ apart: the registry names those). An error layer starting with one ("store: ",
// "scraper: ") names where it came from: noise to a GM. The list is derived
// from the module's directories, not kept by hand: the root package's
// TestModulePackagesListed fails when it is stale, and
// `go test . -run TestModulePackagesListed -update` rewrites it.
var modulePackages = []string{
	// generated: the module's packages
	"bbcode",
	"between",
	"clock",
	"demo",
	"forum",
	"forumconn",
	"forumgm",
	"forumsim",
	"gameconfig",
	"gamelog",
	"games",
	"gate",
	"gmwords",
	"journal",
	"moderator",
	"multirun",
	"nodebb",
	"parser",
	"poster",
	"probe",
	"referee",
	"replay",
	"retry",
	"rules",
	"scenario",
	"schedule",
	"scraper",
	"signup",
	"signups",
	"simplayers",
	"store",
	"webdesk",
}

// internalPrefix matches a module package's name, or a registered
// game's (whose package bears its name), starting an error layer. Built
// when first used: games register as their packages start.
var internalPrefix = sync.OnceValue(func() *regexp.Regexp {
	names := append(slices.Clone(modulePackages), rules.Names()...)
	for i, n := range names {
		names[i] = regexp.QuoteMeta(n)
	}
	return regexp.MustCompile(`(?:^|: )(?:` + strings.Join(names, "|") + `): `)
})

// GMError is err as a GM reads it on the desk: see gmMessage; at most 500
// characters.
func GMError(err error) string { return gmMessage(err, 500) }

// gmMessage is err as a GM reads it in `status` and on the desk, whatever
// step met it: one line, no session ids, tokens or passwords (in query
// strings, form fields or a URL's user info), no internal package
// prefixes, at most max characters.
func gmMessage(err error, max int) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	s = secretParam.ReplaceAllString(s, "$1=…")
	s = urlPassword.ReplaceAllString(s, "$1:…@")
	s = internalPrefix().ReplaceAllStringFunc(s, func(p string) string {
		if strings.HasPrefix(p, ": ") {
			return ": "
		}
		return ""
	})
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}
