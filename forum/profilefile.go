package forum

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// LoadProfile reads a GM's profile file (YAML, documented in
// docs/profiles.md). With `base: ENGINE` it starts from that built-in
// profile and overrides only the keys present; without a base it defines
// an engine from scratch. Unknown keys are errors naming the key and line.
func LoadProfile(path string) (Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Profile{}, fmt.Errorf("profile file: %w", err)
	}
	p, err := ParseProfile(data)
	if err != nil {
		return Profile{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParseProfile is LoadProfile on bytes.
func ParseProfile(data []byte) (Profile, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Profile{}, fmt.Errorf("profile: %w", err)
	}
	if len(doc.Content) == 0 {
		return Profile{}, errors.New("profile: the file is empty")
	}
	root := doc.Content[0]
	if err := checkKeys(root, reflect.TypeOf(Profile{}), ""); err != nil {
		return Profile{}, fmt.Errorf("profile: %w", err)
	}
	var head struct {
		Name string `yaml:"name"`
		Base string `yaml:"base"`
	}
	if err := root.Decode(&head); err != nil {
		return Profile{}, fmt.Errorf("profile: %w", err)
	}
	var p Profile
	if head.Base != "" {
		b, ok := Builtin(head.Base)
		if !ok {
			return Profile{}, fmt.Errorf("profile: unknown base %q (built-in: %s; leave base out to define an engine from scratch)", head.Base, strings.Join(BuiltinNames(), ", "))
		}
		p = b
	} else if head.Name == "" {
		return Profile{}, errors.New("profile: give `base: ENGINE` to start from a built-in engine, or a `name` to define one from scratch")
	}
	// Structs are filled key by key, so only the keys present replace the
	// base's values; lists are replaced whole, maps (a form's extra
	// fields) merged key by key.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return Profile{}, fmt.Errorf("profile: %w", err)
	}
	nilEmpty(reflect.ValueOf(&p).Elem())
	if head.Base == "" {
		p.markupDefaults()
	}
	if err := p.Validate(); err != nil {
		return Profile{}, err
	}
	if err := p.Complete(); err != nil {
		return Profile{}, err
	}
	return p, nil
}

// markupDefaults gives a from-scratch profile the selectors of markup every
// engine shares (bold, quotes, spoilers, code, strike) where it sets none.
func (p *Profile) markupDefaults() {
	for _, d := range []struct {
		dst *string
		def string
	}{
		{&p.Selectors.Bold, BoldSelector}, {&p.Selectors.Quote, QuoteSelector},
		{&p.Selectors.Spoiler, SpoilerSelector}, {&p.Selectors.Code, CodeSelector},
		{&p.Selectors.Strike, StrikeSelector},
	} {
		if strings.TrimSpace(*d.dst) == "" {
			*d.dst = d.def
		}
	}
}

// RequiredKeys are the profile keys a game cannot do without: reading the
// thread and the PMs, logging in, replying and sending PMs.
var RequiredKeys = []string{
	"name", "posts_per_page",
	"urls.thread", "urls.last_page", "urls.post_id_regexp", "urls.login", "urls.inbox", "urls.sent", "urls.read_pm",
	"selectors.post", "selectors.post_id_attr", "selectors.post_id_regexp", "selectors.author", "selectors.time",
	"selectors.body", "selectors.logged_in", "selectors.bold",
	"selectors.inbox_row", "selectors.inbox_link", "selectors.pm", "selectors.pm_from", "selectors.pm_body",
	"forms.login.page", "forms.login.selector", "forms.login.user", "forms.login.password",
	"forms.reply.page", "forms.reply.selector", "forms.reply.message",
	"forms.pm.page", "forms.pm.selector", "forms.pm.subject", "forms.pm.message",
}

// APIRequiredKeys are the keys a board read through its JSON API
// (Profile.API) cannot do without: its pages and forms are not read, only
// the posts' rendered bodies.
var APIRequiredKeys = []string{"name", "posts_per_page", "selectors.body", "selectors.bold"}

// Complete checks that every key of RequiredKeys (APIRequiredKeys for an
// API board) is set, naming all that are missing at once.
func (p Profile) Complete() error {
	required := RequiredKeys
	if p.API != "" {
		if p.API != APINodeBB {
			return fmt.Errorf("profile %s: api %q: the only one is %q (or none, for a board's HTML pages)", p.Name, p.API, APINodeBB)
		}
		required = APIRequiredKeys
	}
	vals := map[string]string{}
	walkProfile(reflect.ValueOf(p), "", func(key string, v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			vals[key] = v.String()
		case reflect.Int:
			if v.Int() > 0 {
				vals[key] = fmt.Sprint(v.Int())
			}
		}
	})
	var missing []string
	for _, k := range required {
		if strings.TrimSpace(vals[k]) == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("profile %s: a game needs %s (see docs/profiles.md)", p.Name, strings.Join(missing, ", "))
	}
	return nil
}

// walkProfile calls fn for every leaf of a profile value with its key path
// ("selectors.post", "forms.login.user").
func walkProfile(v reflect.Value, prefix string, fn func(key string, v reflect.Value)) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name := yamlName(t.Field(i))
		if name == "" {
			continue
		}
		key := joinKey(prefix, name)
		if f := v.Field(i); f.Kind() == reflect.Struct {
			walkProfile(f, key, fn)
		} else {
			fn(key, f)
		}
	}
}

// ProfileKeys lists every key a profile file may hold, as documented:
// the three forms share their keys, listed once as forms.*.KEY, and so do
// the kinds of page's marks (page_marks.*.KEY).
func ProfileKeys() []string {
	seen := map[string]bool{}
	var out []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := 0; i < t.NumField(); i++ {
			name := yamlName(t.Field(i))
			if name == "" {
				continue
			}
			key := joinKey(prefix, name)
			ft := t.Field(i).Type
			if ft == reflect.TypeOf(Form{}) || ft == reflect.TypeOf(Marks{}) {
				if !seen[key] {
					seen[key] = true
					out = append(out, key)
				}
				key = joinKey(prefix, "*")
			}
			if ft.Kind() == reflect.Struct {
				walk(ft, key)
				continue
			}
			if !seen[key] {
				seen[key] = true
				out = append(out, key)
			}
		}
	}
	walk(reflect.TypeOf(Profile{}), "")
	return out
}

func joinKey(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

func yamlName(f reflect.StructField) string {
	tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
	if tag == "-" || !f.IsExported() {
		return ""
	}
	return tag
}

// checkKeys walks a YAML node against the type it will be decoded into and
// reports the first key the type does not have, with its line.
func checkKeys(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	where := path
	if where == "" {
		where = "the profile"
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("line %d: %s must be a mapping of keys", n.Line, where)
		}
		fields := map[string]reflect.Type{}
		var names []string
		for i := 0; i < t.NumField(); i++ {
			if name := yamlName(t.Field(i)); name != "" {
				fields[name] = t.Field(i).Type
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ft, ok := fields[k.Value]
			if !ok {
				return fmt.Errorf("line %d: unknown key %q in %s (known: %s)", k.Line, joinKey(path, k.Value), where, strings.Join(names, ", "))
			}
			if err := checkKeys(v, ft, joinKey(path, k.Value)); err != nil {
				return err
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode && !(n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
			return fmt.Errorf("line %d: %s must be a mapping", n.Line, where)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode && !(n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
			return fmt.Errorf("line %d: %s must be a list", n.Line, where)
		}
	default:
		if n.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: %s must be a single value", n.Line, where)
		}
	}
	return nil
}

// ProfileFileText is p in the profile-file format (`forumgm profile show`):
// every key with its value, the empty ones too, under a comment saying
// what it is. It loads back (LoadProfile) to p itself: a built-in printed
// so shows a GM writing `base: NAME` what each key inherits.
func ProfileFileText(p Profile) ([]byte, error) {
	var body bytes.Buffer
	enc := yaml.NewEncoder(&body)
	enc.SetIndent(2)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The %s profile, every key with its value (docs/profiles.md says what each is).\n", p.Name)
	if _, ok := Builtin(p.Name); ok && p.Base == "" {
		fmt.Fprintf(&b, "# A profile file with `base: %s` starts from these values and overrides only\n", p.Name)
		b.WriteString("# the keys it names: copy just the ones your board needs changed. As it is, this\n")
		b.WriteString("# file is a complete profile of its own.\n")
	}
	b.Write(body.Bytes())
	return b.Bytes(), nil
}

// nilEmpty makes the empty lists and maps of a decoded profile nil, as a
// profile without them has them: `flood_text: []` is no flood text.
func nilEmpty(v reflect.Value) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Struct:
			nilEmpty(f)
		case reflect.Slice, reflect.Map:
			if f.Len() == 0 && f.CanSet() {
				f.Set(reflect.Zero(f.Type()))
			}
		}
	}
}
