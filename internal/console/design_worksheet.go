package console

import "strings"

// The worksheet view shows what dynago design worksheet prints
// (interop.Worksheet's Markdown) as HTML: parseMarkdown reads the few
// forms it writes (headings, paragraphs, pipe tables, `code` spans and
// backslash escapes) into blocks the template renders, escaping every
// word as html/template does.

// mdBlock is a heading (Level 1 or 2), a paragraph, or a table.
type mdBlock struct {
	Level  int
	Text   []mdSpan
	Header [][]mdSpan
	Rows   [][][]mdSpan
}

// IsTable says the block is a table.
func (b mdBlock) IsTable() bool { return b.Header != nil }

// mdSpan is a run of text, Code for a `code` span.
type mdSpan struct {
	Text string
	Code bool
}

// parseMarkdown splits md into blocks: "# " and "## " lines are
// headings, runs of "|" lines tables (the first row the header, the
// "|---|" row skipped), other runs of lines paragraphs.
func parseMarkdown(md string) []mdBlock {
	var out []mdBlock
	var para []string
	var table [][]string
	flush := func() {
		if len(para) > 0 {
			out = append(out, mdBlock{Text: inline(strings.Join(para, " "))})
			para = nil
		}
		if len(table) > 0 {
			b := mdBlock{Header: cellsOf(table[0])}
			for _, r := range table[1:] {
				b.Rows = append(b.Rows, cellsOf(r))
			}
			out = append(out, b)
			table = nil
		}
	}
	for _, line := range strings.Split(md, "\n") {
		line = strings.TrimRight(line, " \r")
		switch {
		case strings.HasPrefix(line, "# "), strings.HasPrefix(line, "## "):
			flush()
			level := 1
			if strings.HasPrefix(line, "## ") {
				level = 2
			}
			out = append(out, mdBlock{Level: level, Text: inline(strings.TrimLeft(line, "# "))})
		case strings.HasPrefix(line, "|"):
			if len(para) > 0 {
				flush()
			}
			cells := splitRow(line)
			if isRule(cells) {
				continue
			}
			table = append(table, cells)
		case line == "":
			flush()
		default:
			if len(table) > 0 {
				flush()
			}
			para = append(para, line)
		}
	}
	flush()
	return out
}

// splitRow splits a table row at its unescaped pipes, trimmed.
func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var cells []string
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			b.WriteString(`\|`)
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// isRule says cells are a header rule (---).
func isRule(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" {
			return false
		}
	}
	return true
}

func cellsOf(cells []string) [][]mdSpan {
	out := make([][]mdSpan, len(cells))
	for i, c := range cells {
		out[i] = inline(c)
	}
	return out
}

// inline splits s into text and `code` spans, undoing the backslash
// escapes (\| \* \\ \`) outside code and \| inside (the worksheet
// escapes a cell's pipes everywhere).
func inline(s string) []mdSpan {
	var out []mdSpan
	var b strings.Builder
	code := false
	emit := func() {
		if b.Len() > 0 {
			out = append(out, mdSpan{Text: b.String(), Code: code})
			b.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\' && i+1 < len(s) && (s[i+1] == '|' || (!code && strings.IndexByte("*\\`_", s[i+1]) >= 0)):
			b.WriteByte(s[i+1])
			i++
		case ch == '`':
			emit()
			code = !code
		default:
			b.WriteByte(ch)
		}
	}
	emit()
	return out
}
