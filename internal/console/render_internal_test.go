package console

import "testing"

// TestPagesParse parses every page template with the layout and checks
// each defines the title and content the layout calls for (pages are
// parsed lazily at serve time, so a broken one would only show there).
func TestPagesParse(t *testing.T) {
	ps := mustParsePages()
	if len(ps) == 0 {
		t.Fatal("no pages")
	}
	for name, tmpl := range ps {
		for _, def := range []string{"layout", "title", "content"} {
			if tmpl.Lookup(def) == nil {
				t.Errorf("page %s defines no %q", name, def)
			}
		}
	}
}
