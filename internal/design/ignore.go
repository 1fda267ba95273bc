package design

import (
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Ignore is a `# dynago:ignore RULE[,RULE...] REASON` comment: findings
// of the named rules on lines From to To are not reported (check.Check
// drops them, and warns about an ignore that dropped nothing).
//
// The comment goes at the end of a line, or on its own line above one
// (it is about the next line that is not blank or a comment). On the first line of an access pattern (its `- id:` line) or
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

// ignores reads the dynago:ignore comments of the document under root,
// whose source is raw. yaml.v3 attaches a comment to a node as a head,
// line or foot comment (a comment indented under the node before is its
// foot comment though it sits above the next): the comments are taken
// from the nodes, so that "#" inside a quoted value is never one, and
// placed by finding their text in raw. spans maps the first line of each
// pattern and entity to its last line.
func (p *parser) ignores(root *yaml.Node, raw []byte, spans map[int]int) []Ignore {
	want := map[string]int{} // directive comment text: occurrences
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil {
			return
		}
		for _, c := range []string{n.HeadComment, n.LineComment, n.FootComment} {
			for _, line := range strings.Split(c, "\n") {
				if line = strings.TrimSpace(line); strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(line, "#")), "dynago:ignore") {
					want[line]++
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	if len(want) == 0 {
		return nil
	}
	lines := strings.Split(string(raw), "\n")
	var out []Ignore
	for i, line := range lines {
		line = strings.TrimRight(line, " \t\r")
		for c, n := range want {
			if n == 0 || !strings.HasSuffix(line, c) {
				continue
			}
			want[c]--
			col := len(line) - len(c) + 1
			target := i + 1
			if strings.TrimSpace(line[:col-1]) == "" {
				// On its own line: about the next line that is not blank
				// or a comment.
				for target = i + 2; target <= len(lines); target++ {
					if t := strings.TrimSpace(lines[target-1]); t != "" && !strings.HasPrefix(t, "#") {
						break
					}
				}
			}
			if ig, ok := p.ignore(c, Pos{File: p.file, Line: i + 1, Col: col}, target, spans); ok {
				out = append(out, ig)
			}
			break
		}
	}
	return out
}

// ignore reads one directive comment at pos about line target.
func (p *parser) ignore(line string, at Pos, target int, spans map[int]int) (Ignore, bool) {
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
	ig := Ignore{Rules: strings.Split(m[1], ","), Reason: m[2], From: target, To: target, Pos: at}
	if end, ok := spans[target]; ok {
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
