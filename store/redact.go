package store

import (
	"errors"
	"net/url"
	"regexp"
	"strings"
)

// Redact returns a database URL fit to print: the password of
// scheme://user:PASSWORD@host (even in a URL too malformed to parse) and any
// password=… of a key=value DSN become "xxxxx". Every error or log line
// that may hold a DSN goes through it.
func Redact(dsn string) string {
	out := dsn
	if i := strings.Index(out, "://"); i >= 0 {
		rest := out[i+3:]
		// The password runs from the first ':' of the user info to the
		// last '@' (a malformed password may itself hold '@' or '/').
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if c := strings.Index(rest[:at], ":"); c >= 0 {
				rest = rest[:c+1] + "xxxxx" + rest[at:]
			}
		}
		out = out[:i+3] + rest
	} else if at := strings.LastIndex(out, "@"); at >= 0 {
		// user:PASS@host with the scheme mistyped (postgres:/…,
		// postgres//…) or left out.
		start := len(schemeSlashes.FindString(out[:at]))
		if c := strings.Index(out[start:at], ":"); c >= 0 {
			out = out[:start+c+1] + "xxxxx" + out[at:]
		}
	}
	return passwordKV.ReplaceAllString(out, "${1}xxxxx")
}

var schemeSlashes = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:?/+`)

var passwordKV = regexp.MustCompile(`(?i)(password\s*=\s*)('[^']*'|\S+)`)

// redactedError is an error whose text had a DSN's password taken out; it
// still unwraps to the original for errors.Is (ErrSchemaTooNew, …).
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactErr takes dsn's password out of err's text, wherever in the chain
// the driver or net/url quoted the DSN.
func redactErr(err error, dsn string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if dsn != "" {
		msg = strings.ReplaceAll(msg, dsn, Redact(dsn))
		if pw := dsnPassword(dsn); len(pw) >= 3 {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
		}
	}
	// net/url quotes the bad %-escape, which may be part of the password.
	var ee url.EscapeError
	if errors.As(err, &ee) {
		msg = strings.ReplaceAll(msg, string(ee), "%…")
	}
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

// dsnPassword is the password Redact would hide ("" if none).
func dsnPassword(dsn string) string {
	r := Redact(dsn)
	// The text Redact replaced is where the two strings first differ,
	// up to where they agree again at the end.
	i := 0
	for i < len(r) && i < len(dsn) && r[i] == dsn[i] {
		i++
	}
	j := 0
	for j < len(r)-i && j < len(dsn)-i && r[len(r)-1-j] == dsn[len(dsn)-1-j] {
		j++
	}
	if i >= len(dsn)-j {
		return ""
	}
	return dsn[i : len(dsn)-j]
}
