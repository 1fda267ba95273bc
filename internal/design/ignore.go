package design

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Ignore is a `# dynago:ignore RULE[,RULE...] REASON` comment: findings
// of the named rules on lines From to To are not reported (check.Check
// drops them, and warns about an ignore that dropped nothing).
//
// The comment goes at the end of a line, or on its own line(s) directly
// above one. On the first line of an access pattern (its `- id:` line) or
// of an entity (its name), it covers the whole pattern or entity: the
// findings reported at its key, given list or attributes too. Anywhere
// else it covers that one line. A reason is required: the file says why
// the finding does not apply, as staticcheck's lint:ignore does.
type Ignore struct {
	Rules    []string
	Reason   string
	From, To int
	Pos      Pos
}

// ignoreDirective matches a dynago:ignore comment's text after its #.
var ignoreDirective = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^#\s*dynago:ignore(?:\s+(\S+))?(?:\s+(.*\S))?\s*$`)
})

// ignores reads the dynago:ignore comments of the document under root.
// spans maps the first line of each pattern and entity to its last line.
func (p *parser) ignores(root *yaml.Node, spans map[int]int) []Ignore {
	var out []Ignore
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil {
			return
		}
		for _, c := range []string{n.HeadComment, n.LineComment} {
			for _, line := range strings.Split(c, "\n") {
				line = strings.TrimSpace(line)
				if !strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(line, "#")), "dynago:ignore") {
					continue
				}
				if ig, ok := p.ignore(line, n, spans); ok {
					out = append(out, ig)
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	slices.SortFunc(out, func(a, b Ignore) int { return a.From - b.From })
	return slices.CompactFunc(out, func(a, b Ignore) bool {
		return a.From == b.From && a.To == b.To && a.Reason == b.Reason && slices.Equal(a.Rules, b.Rules)
	})
}

// ignore reads one comment line attached to node n (a head comment is
// about n's line, a line comment is on it).
func (p *parser) ignore(line string, n *yaml.Node, spans map[int]int) (Ignore, bool) {
	at := Pos{File: p.file, Line: n.Line, Col: n.Column}
	m := ignoreDirective().FindStringSubmatch(line)
	switch {
	case m == nil:
		p.errorf(at, "a dynago:ignore comment is # dynago:ignore RULE[,RULE...] REASON, not %q", line)
		return Ignore{}, false
	case m[1] == "":
		p.errorf(at, "dynago:ignore names the rule it silences: # dynago:ignore RULE REASON (the rule is in brackets at the end of the finding)")
		return Ignore{}, false
	case m[2] == "":
		p.errorf(at, "dynago:ignore %s needs a reason after the rule: say why the finding does not apply here", m[1])
		return Ignore{}, false
	}
	ig := Ignore{Rules: strings.Split(m[1], ","), Reason: m[2], From: n.Line, To: n.Line, Pos: at}
	if end, ok := spans[n.Line]; ok {
		ig.To = end
	}
	return ig, true
}

// lastLine is the last line a node's content reaches.
func lastLine(n *yaml.Node) int {
	end := n.Line
	for _, c := range n.Content {
		end = max(end, lastLine(c))
	}
	return end
}
