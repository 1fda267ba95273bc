package cli

import (
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// terminalWidth is the width of the terminal w writes to, or 0 when w is
// not a terminal (a pipe, a file, a test's buffer): output meant for
// scripts is never wrapped.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return width
}

// wrap breaks line into lines of at most width characters at spaces, the
// lines after the first indented by indent; a word longer than a line is
// left whole. width 0 (or too narrow for the indent and a word) leaves
// line as it is.
func wrap(line string, width int, indent string) string {
	if width <= len(indent)+10 || utf8.RuneCountInString(line) <= width {
		return line
	}
	var b strings.Builder
	col := 0
	for i, word := range strings.Fields(line) {
		n := utf8.RuneCountInString(word)
		switch {
		case i == 0:
		case col+1+n > width:
			b.WriteString("\n" + indent)
			col = len(indent)
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	return b.String()
}
