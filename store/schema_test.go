package store_test

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jmoiron/sqlx"

	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/pgtest"
)

// The top-level schema files show the data model: the tables a fresh
// database has after every migration, with the migrations' comments. They
// are generated from the migrations, which stay the source; the tests below
// fail when a file is stale or says something the migrated database does
// not have.

var update = flag.Bool("update", false, "rewrite ../schema.sql and ../schema.postgres.sql from the migrations")

// schemaFiles are the generated files, one per engine, each runnable as it
// is on its engine (so each is checked by running it there).
var schemaFiles = map[string]string{
	"sqlite":   "schema.sql",
	"postgres": "schema.postgres.sql",
}

var engineName = map[string]string{"sqlite": "SQLite", "postgres": "PostgreSQL"}

const regenerate = "go test ./store -run TestSchemaFiles -update"

// TestSchemaFilesAreCurrent: each file is exactly what the migrations
// generate now.
func TestSchemaFilesAreCurrent(t *testing.T) {
	t.Parallel()
	for _, driver := range []string{"sqlite", "postgres"} {
		want, err := schemaText(driver)
		must(t, err)
		file := path.Join("..", schemaFiles[driver])
		if *update {
			must(t, os.WriteFile(file, []byte(want), 0o644))
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%v: generate it with `%s`", err, regenerate)
			continue
		}
		if string(got) != want {
			t.Errorf("%s is stale (the migrations in store/migrations/%s changed): regenerate it with `%s`; %s",
				schemaFiles[driver], driver, regenerate, firstDifference(string(got), want))
		}
	}
}

// TestSchemaFilesMatchMigratedDatabase: a database made by running the
// file has the same tables, columns (in order, with types, nullability,
// defaults and identity), keys, foreign keys and indexes as one made by the
// migrations, on SQLite and on a real PostgreSQL.
func TestSchemaFilesMatchMigratedDatabase(t *testing.T) {
	t.Parallel()
	eachDSN(t, func(t *testing.T, driver, dsn string) {
		db, err := store.Open(ctx, dsn)
		must(t, err)
		must(t, db.Close())
		migrated := introspect(t, driver, rawDB(t, driver, dsn))

		text, err := os.ReadFile(path.Join("..", schemaFiles[driver]))
		must(t, err)
		fresh := freshDSN(t, driver)
		raw := rawDB(t, driver, fresh)
		for _, s := range store.Statements(string(text)) {
			rawExec(t, raw, s)
		}
		fromFile := introspect(t, driver, raw)
		if len(migrated) < 50 {
			t.Fatalf("the migrated database shows only %q", migrated)
		}
		if !reflect.DeepEqual(fromFile, migrated) {
			t.Errorf("%s does not make the database the migrations make (regenerate it with `%s`; if it is current, the generator in store/schema_test.go folds a migration wrongly):\n%s",
				schemaFiles[driver], regenerate, setDifference(fromFile, migrated))
		}
	})
}

// TestSchemaFolding: the generator folds later columns and indexes into
// their tables, keeps comments, and refuses what it cannot fold.
func TestSchemaFolding(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"0001_a.sql": "-- Migration 1: the first.\n--\n-- Conventions: none.\n\n-- The games.\nCREATE TABLE g (\n    id INTEGER PRIMARY KEY,\n    name TEXT NOT NULL DEFAULT 'a, (b)',\n    UNIQUE (name)\n);\nCREATE INDEX g_name ON g (name, id);\n",
		"0002_b.sql": "-- Notes on a game.\nALTER TABLE g ADD COLUMN note TEXT;\nALTER TABLE g ADD COLUMN longer_name BIGINT NOT NULL DEFAULT 0;\nUPDATE g SET note = '';\nCREATE TABLE h (x TEXT);\nCREATE UNIQUE INDEX g_note ON g (note);\n",
	}
	m, err := foldMigrations(mapFS(files), "sqlite")
	must(t, err)
	got := m.render()
	want := `-- Conventions: none.

-- The games.
CREATE TABLE g (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL DEFAULT 'a, (b)',
    -- Added by 0002_b.sql.
    -- Notes on a game.
    note        TEXT,
    longer_name BIGINT  NOT NULL DEFAULT 0,
    UNIQUE (name)
);
CREATE INDEX g_name ON g (name, id);
-- Added by 0002_b.sql.
CREATE UNIQUE INDEX g_note ON g (note);

-- Added by 0002_b.sql.
CREATE TABLE h (
    x TEXT
);
`
	if got != want {
		t.Errorf("folded:\n%s\nwant:\n%s\n%s", got, want, firstDifference(got, want))
	}
	for name, body := range map[string]string{
		"drop":           "CREATE TABLE g (id INTEGER);\nDROP TABLE g;\n",
		"unknown table":  "ALTER TABLE nope ADD COLUMN x TEXT;\n",
		"inline comment": "CREATE TABLE g (id INTEGER); -- why\n",
		"two tables":     "CREATE TABLE g (id INTEGER);\nCREATE TABLE g (id INTEGER);\n",
		"unterminated":   "CREATE TABLE g (id INTEGER)\n",
	} {
		if _, err := foldMigrations(mapFS(map[string]string{"0001_a.sql": body}), "sqlite"); err == nil {
			t.Errorf("%s: folded without an error", name)
		}
	}
}

func mapFS(files map[string]string) fs.FS {
	m := fstest.MapFS{}
	for n, s := range files {
		m["migrations/sqlite/"+n] = &fstest.MapFile{Data: []byte(s)}
	}
	return m
}

// freshDSN is a second, empty database of the driver's kind.
func freshDSN(t *testing.T, driver string) string {
	t.Helper()
	if driver == "postgres" {
		return pgtest.DSN(t)
	}
	return path.Join(t.TempDir(), "from-file.db")
}

// schemaText is the file for driver: its header, then the folded schema.
func schemaText(driver string) (string, error) {
	m, err := foldMigrations(store.EmbeddedMigrations, driver)
	if err != nil {
		return "", err
	}
	other := "postgres"
	if driver == "postgres" {
		other = "sqlite"
	}
	o, err := foldMigrations(store.EmbeddedMigrations, other)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	first, last := m.files[0], m.files[len(m.files)-1]
	for _, line := range wrap(fmt.Sprintf(
		"%s: the tables of a fresh forumgm database on %s, after every migration in store/migrations/%s (%s to %s). "+
			"The migrations are the source: this file is generated from them, and `go test ./store` fails when it is stale or "+
			"makes a database other than theirs. Do not edit it; after adding a migration, regenerate it with",
		schemaFiles[driver], engineName[driver], driver, first, last), 76) {
		b.WriteString("-- " + line + "\n")
	}
	b.WriteString("--   " + regenerate + "\n")
	b.WriteString("-- A table, column or index a later migration added is marked with that\n-- migration; a column it added is shown in its table.\n--\n")
	for _, line := range wrap(fmt.Sprintf("%s: %s, %s", engineName[other], schemaFiles[other], m.differences(o)), 76) {
		b.WriteString("-- " + line + "\n")
	}
	b.WriteString("\n")
	b.WriteString(m.render())
	return b.String(), nil
}

// A folded schema: the tables in the order they were created, each with
// every column and index any migration gave it.
type schemaModel struct {
	files  []string // the migrations, in order
	header []string // comment lines about the data as a whole
	tables []*schemaTable
	byName map[string]*schemaTable
}

type schemaTable struct {
	item
	columns     []item
	constraints []item
	indexes     []item
}

// item is one table, column, table constraint or index, with the comment
// lines before it (as written, "--" included) and the migration it came
// from.
type item struct {
	source  string
	comment []string
	name    string // a column's or table's name
	typ     string // a column's type
	rest    string // the rest of a column's definition; a constraint's or index's text
}

var (
	createTable = regexp.MustCompile(`(?is)^CREATE TABLE (\w+) \((.*)\)$`)
	createIndex = regexp.MustCompile(`(?is)^CREATE (UNIQUE )?INDEX (\w+) ON (\w+) .*$`)
	addColumn   = regexp.MustCompile(`(?is)^ALTER TABLE (\w+) ADD COLUMN (.*)$`)
	dataChange  = regexp.MustCompile(`(?is)^(INSERT|UPDATE|DELETE) `)
	constraint  = regexp.MustCompile(`(?i)^(PRIMARY|UNIQUE|FOREIGN|CHECK|CONSTRAINT)\b`)
)

// foldMigrations reads driver's migrations from fsys (migrations/DRIVER/)
// in order and folds them into one schema. It understands what the
// migrations do today (CREATE TABLE, CREATE INDEX, ALTER TABLE … ADD
// COLUMN, and data changes, which leave the schema alone); anything else is
// an error, so a migration it cannot fold is never shown wrongly.
func foldMigrations(fsys fs.FS, driver string) (*schemaModel, error) {
	dir := path.Join("migrations", driver)
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	m := &schemaModel{byName: map[string]*schemaTable{}}
	for _, e := range entries {
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		m.files = append(m.files, e.Name())
		if err := m.fold(e.Name(), string(b)); err != nil {
			return nil, fmt.Errorf("%s/%s: %w", dir, e.Name(), err)
		}
	}
	if len(m.files) == 0 {
		return nil, fmt.Errorf("no migrations in %s", dir)
	}
	return m, nil
}

// fold adds one migration. A comment block at the top of a file followed by
// a blank line is the file's header: its first paragraph names the
// migration; the rest is about the data as a whole, and is kept. Every
// other comment block belongs to the statement after it.
func (m *schemaModel) fold(file, text string) error {
	lines := strings.Split(text, "\n")
	i := 0
	var top []string
	for i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "--") {
		top = append(top, strings.TrimSpace(lines[i]))
		i++
	}
	var pending []string
	if i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		if kept := keepParagraphs(top); len(kept) > 0 {
			if len(m.header) > 0 {
				m.header = append(m.header, "--")
			}
			m.header = append(m.header, kept...)
		}
	} else {
		pending = top
	}
	var stmt []string
	for ; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		switch {
		case l == "" && len(stmt) == 0:
			continue
		case strings.HasPrefix(l, "--") && len(stmt) == 0:
			pending = append(pending, l)
			continue
		case strings.Contains(l, "--") && !strings.HasPrefix(l, "--"):
			return fmt.Errorf("line %d: a comment after code (%q): put it on the lines before", i+1, l)
		}
		stmt = append(stmt, lines[i])
		if strings.HasSuffix(l, ";") {
			if err := m.statement(file, pending, stmt); err != nil {
				return fmt.Errorf("line %d: %w", i+1, err)
			}
			pending, stmt = nil, nil
		} else if strings.Contains(l, ";") {
			return fmt.Errorf("line %d: a \";\" inside a line (%q): end statements at a line's end", i+1, l)
		}
	}
	if len(stmt) > 0 {
		return fmt.Errorf("a statement without its closing \";\": %q", strings.Join(stmt, "\n"))
	}
	return nil
}

// keepParagraphs is a file header's comment lines after its first
// paragraph.
func keepParagraphs(top []string) []string {
	for i, l := range top {
		if l == "--" {
			return append([]string(nil), top[i+1:]...)
		}
	}
	return nil
}

func (m *schemaModel) statement(file string, comment, lines []string) error {
	var code []string
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			code = append(code, l)
		}
	}
	text := strings.TrimSuffix(strings.TrimSpace(strings.Join(code, "\n")), ";")
	flat := oneLine(text)
	switch {
	case createTable.MatchString(flat):
		name := createTable.FindStringSubmatch(flat)[1]
		if m.byName[name] != nil {
			return fmt.Errorf("table %s created twice", name)
		}
		t := &schemaTable{item: item{source: file, comment: comment, name: name}}
		whole := strings.Join(lines, "\n") // comments inside the body kept
		items, err := tableItems(whole[strings.Index(whole, "(")+1 : strings.LastIndex(whole, ")")])
		if err != nil {
			return fmt.Errorf("table %s: %w", name, err)
		}
		for _, it := range items {
			it.source = file
			if constraint.MatchString(it.rest) {
				t.constraints = append(t.constraints, it)
			} else if err := t.addColumn(it); err != nil {
				return err
			}
		}
		m.tables = append(m.tables, t)
		m.byName[name] = t
	case createIndex.MatchString(flat):
		table := createIndex.FindStringSubmatch(flat)[3]
		t := m.byName[table]
		if t == nil {
			return fmt.Errorf("an index on %s, which no earlier statement creates", table)
		}
		t.indexes = append(t.indexes, item{source: file, comment: comment, rest: flat})
	case addColumn.MatchString(flat):
		sm := addColumn.FindStringSubmatch(flat)
		t := m.byName[sm[1]]
		if t == nil {
			return fmt.Errorf("a column for %s, which no earlier statement creates", sm[1])
		}
		return t.addColumn(item{source: file, comment: comment, rest: sm[2]})
	case dataChange.MatchString(flat):
		// Rows, not schema.
	default:
		return fmt.Errorf("cannot fold %q into the schema files: teach foldMigrations (store/schema_test.go) what it does", flat)
	}
	return nil
}

// addColumn splits a column definition into name, type and the rest.
func (t *schemaTable) addColumn(it item) error {
	f := strings.Fields(it.rest)
	if len(f) < 2 {
		return fmt.Errorf("table %s: column %q has no type", t.name, it.rest)
	}
	it.name, it.typ, it.rest = f[0], f[1], strings.Join(f[2:], " ")
	for _, c := range t.columns {
		if strings.EqualFold(c.name, it.name) {
			return fmt.Errorf("table %s: column %s added twice", t.name, it.name)
		}
	}
	t.columns = append(t.columns, it)
	return nil
}

// tableItems splits a CREATE TABLE's body at its top-level commas (not
// those in parentheses or quotes); comment lines go with the item after
// them.
func tableItems(body string) ([]item, error) {
	var out []item
	var pending []string
	var cur strings.Builder
	depth, quoted := 0, false
	flush := func() {
		if s := oneLine(cur.String()); s != "" {
			out = append(out, item{comment: pending, rest: s})
			pending = nil
		}
		cur.Reset()
	}
	for _, line := range strings.Split(body, "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "--") {
			pending = append(pending, l)
			continue
		}
		for _, r := range line {
			switch {
			case r == '\'':
				quoted = !quoted
			case quoted:
			case r == '(':
				depth++
			case r == ')':
				depth--
			case r == ',' && depth == 0:
				flush()
				continue
			}
			cur.WriteRune(r)
		}
		cur.WriteByte(' ')
	}
	flush()
	if depth != 0 || quoted {
		return nil, fmt.Errorf("unbalanced parentheses or quotes")
	}
	return out, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// render writes the folded schema as SQL: the header comments, then each
// table with its columns aligned, its constraints and its indexes.
func (m *schemaModel) render() string {
	var b strings.Builder
	if len(m.header) > 0 {
		for _, l := range m.header {
			b.WriteString(l + "\n")
		}
		b.WriteString("\n")
	}
	origin := m.files[0]
	for i, t := range m.tables {
		if i > 0 {
			b.WriteString("\n")
		}
		if t.source != origin {
			b.WriteString("-- Added by " + t.source + ".\n")
		}
		for _, c := range t.comment {
			b.WriteString(c + "\n")
		}
		b.WriteString("CREATE TABLE " + t.name + " (\n")
		nameW, typW := 0, 0
		for _, c := range t.columns {
			nameW = max(nameW, len(c.name))
			if c.rest != "" {
				typW = max(typW, len(c.typ))
			}
		}
		var lines []string
		prev := t.source
		for _, c := range t.columns {
			var pre []string
			if c.source != prev || (c.source != t.source && len(c.comment) > 0) {
				pre = append(pre, "-- Added by "+c.source+".")
			}
			pre = append(pre, c.comment...)
			prev = c.source
			def := fmt.Sprintf("%-*s %s", nameW, c.name, c.typ)
			if c.rest != "" {
				def = fmt.Sprintf("%-*s %-*s %s", nameW, c.name, typW, c.typ, c.rest)
			}
			lines = append(lines, commented(pre, def)...)
		}
		for _, c := range t.constraints {
			lines = append(lines, commented(c.comment, c.rest)...)
		}
		// Commas after every definition but the last (comment lines take none).
		last := len(lines) - 1
		for i, l := range lines {
			if !strings.HasPrefix(l, "--") && i != last {
				l += ","
			}
			b.WriteString("    " + l + "\n")
		}
		b.WriteString(");\n")
		for _, ix := range t.indexes {
			if ix.source != t.source {
				b.WriteString("-- Added by " + ix.source + ".\n")
			}
			for _, c := range ix.comment {
				b.WriteString(c + "\n")
			}
			b.WriteString(ix.rest + ";\n")
		}
	}
	return b.String()
}

func commented(comment []string, def string) []string {
	return append(append([]string(nil), comment...), strings.TrimRight(def, " "))
}

// differences says how this engine's schema differs from other's, for the
// header: column definitions grouped by the two spellings, then tables,
// columns and indexes only one engine has.
func (m *schemaModel) differences(other *schemaModel) string {
	type pair struct{ here, there string }
	diff := map[pair][]string{}
	var only []string
	for _, t := range m.tables {
		ot := other.byName[t.name]
		if ot == nil {
			only = append(only, "table "+t.name+" only here")
			continue
		}
		for _, c := range t.columns {
			oc, ok := ot.column(c.name)
			if !ok {
				only = append(only, "column "+t.name+"."+c.name+" only here")
				continue
			}
			if h, th := oneLine(c.typ+" "+c.rest), oneLine(oc.typ+" "+oc.rest); h != th {
				p := pair{h, th}
				diff[p] = append(diff[p], t.name+"."+c.name)
			}
		}
		for _, ix := range t.indexes {
			if !ot.hasIndex(ix.rest) {
				only = append(only, "index `"+ix.rest+"` only here")
			}
		}
	}
	for _, t := range other.tables {
		if m.byName[t.name] == nil {
			only = append(only, "table "+t.name+" only there")
		}
	}
	if len(diff) == 0 && len(only) == 0 {
		return "the same tables, columns and indexes."
	}
	var parts []string
	for p, cols := range diff {
		sort.Strings(cols)
		parts = append(parts, fmt.Sprintf("%s are %s here, %s there", strings.Join(cols, ", "), p.here, p.there))
	}
	sort.Strings(parts)
	parts = append(parts, only...)
	return "the same tables, columns and indexes but for these: " + strings.Join(parts, "; ") + "."
}

func (t *schemaTable) column(name string) (item, bool) {
	for _, c := range t.columns {
		if c.name == name {
			return c, true
		}
	}
	return item{}, false
}

func (t *schemaTable) hasIndex(text string) bool {
	for _, ix := range t.indexes {
		if ix.rest == text {
			return true
		}
	}
	return false
}

// wrap breaks text into lines of at most width characters at spaces.
func wrap(text string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// introspect describes a database's schema as the engine itself reports
// it, one sorted line per fact.
func introspect(t *testing.T, driver string, raw *sqlx.DB) []string {
	t.Helper()
	var queries []string
	if driver == "postgres" {
		queries = []string{
			`SELECT 'column', table_name, ordinal_position, column_name, data_type, is_nullable,
				COALESCE(column_default, ''), is_identity, COALESCE(identity_generation, '')
			FROM information_schema.columns WHERE table_schema = current_schema()`,
			`SELECT 'constraint', c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid)
			FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = current_schema()`,
			`SELECT 'index', tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()`,
		}
	} else {
		tables := `FROM sqlite_master m WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`
		queries = []string{
			`SELECT 'table', m.name, instr(upper(m.sql), 'AUTOINCREMENT') > 0 ` + tables,
			`SELECT 'column', m.name, p.cid, p.name, p.type, p."notnull", COALESCE(p.dflt_value, ''), p.pk
			` + strings.Replace(tables, "FROM sqlite_master m", "FROM sqlite_master m JOIN pragma_table_info(m.name) p", 1),
			`SELECT 'foreign key', m.name, f.id, f.seq, f."table", f."from", f."to", f.on_update, f.on_delete
			` + strings.Replace(tables, "FROM sqlite_master m", "FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) f", 1),
			`SELECT 'index', m.name, i.name, i."unique", i.origin, i.partial, ii.seqno, COALESCE(ii.name, '')
			` + strings.Replace(tables, "FROM sqlite_master m", "FROM sqlite_master m JOIN pragma_index_list(m.name) i JOIN pragma_index_info(i.name) ii", 1),
		}
	}
	var out []string
	for _, q := range queries {
		rows, err := raw.Queryx(q)
		must(t, err)
		for rows.Next() {
			vals, err := rows.SliceScan()
			must(t, err)
			var f []string
			for _, v := range vals {
				if b, ok := v.([]byte); ok {
					v = string(b)
				}
				f = append(f, fmt.Sprint(v))
			}
			out = append(out, strings.Join(f, " | "))
		}
		must(t, rows.Err())
		must(t, rows.Close())
	}
	sort.Strings(out)
	return out
}

// setDifference lists the lines only one side has.
func setDifference(fromFile, migrated []string) string {
	in := func(s []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range s {
			m[x] = true
		}
		return m
	}
	f, g := in(fromFile), in(migrated)
	var b strings.Builder
	for _, x := range fromFile {
		if !g[x] {
			b.WriteString("  only from the file:       " + x + "\n")
		}
	}
	for _, x := range migrated {
		if !f[x] {
			b.WriteString("  only from the migrations: " + x + "\n")
		}
	}
	return b.String()
}

// firstDifference names the first line where got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl || i >= len(g) || i >= len(w) {
			return fmt.Sprintf("first difference at line %d: the file has %q, the migrations make %q", i+1, gl, wl)
		}
	}
	return "no difference"
}
