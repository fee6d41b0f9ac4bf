// Package forumgm holds what belongs to the whole program rather than to one
// package: its version and the database schema the store applies.
package forumgm

import _ "embed"

// Version is the program's version.
const Version = "0.1.0"

// Schema is the one schema.sql for SQLite and PostgreSQL (see its header for
// the {{ID}} substitution and the portable conventions).
//
//go:embed schema.sql
var Schema string
