// Package htmlcheck holds checks tests make on the HTML the program writes
// (bbcode's renderer, the forum simulator's pages).
package htmlcheck

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html"
)

// voids are HTML's void elements: they take no end tag.
var voids = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true,
}

// IsVoid reports whether the element named name (lower case) is void: it
// has no content and no end tag.
func IsVoid(name string) bool { return voids[name] }

// WellNested tokenizes h and returns an error unless every end tag closes
// the innermost open element and nothing is left open (void elements aside).
func WellNested(h string) error {
	z := html.NewTokenizer(strings.NewReader(h))
	var stack []string
	for {
		switch z.Next() {
		case html.ErrorToken:
			if !errors.Is(z.Err(), io.EOF) {
				return z.Err()
			}
			if len(stack) > 0 {
				return fmt.Errorf("unclosed %v", stack)
			}
			return nil
		case html.StartTagToken:
			n, _ := z.TagName()
			if !voids[string(n)] {
				stack = append(stack, string(n))
			}
		case html.EndTagToken:
			n, _ := z.TagName()
			if len(stack) == 0 || stack[len(stack)-1] != string(n) {
				return fmt.Errorf("end tag %s with open %v", n, stack)
			}
			stack = stack[:len(stack)-1]
		}
	}
}
